"""Text edits of an offer that rewrites code, then inserts pragmas into the result."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from accls.server.documents import Document
from accls.suggest import Suggestion
from accls.suggest.annotate import insertions

__all__ = ["Edit", "rewrite_edits"]

Edit = tuple[int, int, str]
"""Replace bytes [start, end) of the old text with the text."""


def _old_offset(edits: Sequence[Edit], offset: int) -> int | None:
    """Where byte `offset` of the rewritten text stood in the old text."""
    shift = 0
    for start, end, new in edits:
        new_start = start + shift
        if offset <= new_start:
            break
        if offset < new_start + len(new.encode("utf-8")):
            return None  # inside replaced text
        shift += len(new.encode("utf-8")) - (end - start)
    return offset - shift


def rewrite_edits(
    doc: Document,
    edits: Sequence[Edit],
    text: str,
    suggestions: tuple[Suggestion, ...],
) -> list[types.TextEdit] | None:
    """The rewrite's edits and the pragmas of `text` (the rewritten buffer).

    None when a pragma would land inside rewritten text.
    """
    index = doc.index
    out = [
        types.TextEdit(
            range=types.Range(start=index.position(start), end=index.position(end)),
            new_text=new,
        )
        for start, end, new in edits
    ]
    for at, new in insertions(text, suggestions):
        old = _old_offset(edits, at)
        if old is None:
            return None
        where = index.position(old)
        out.append(
            types.TextEdit(range=types.Range(start=where, end=where), new_text=new)
        )
    return out
