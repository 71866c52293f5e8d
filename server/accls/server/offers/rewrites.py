"""Text edits of an offer that rewrites code, then inserts pragmas into the result."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lsprotocol import types

from accls.server.documents import Document
from accls.server.suggestions import Validated
from accls.suggest import Suggestion
from accls.suggest.annotate import insertions

__all__ = ["Edit", "finish_rewrite", "insertion_edits", "rewrite_edits"]

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


def insertion_edits(
    doc: Document, inserted: Iterable[tuple[int, str]]
) -> list[types.TextEdit]:
    """LSP edits for (byte offset, text) insertions into the document."""
    index = doc.index
    out: list[types.TextEdit] = []
    for at, new in inserted:
        where = index.position(at)
        out.append(
            types.TextEdit(range=types.Range(start=where, end=where), new_text=new)
        )
    return out


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


def finish_rewrite(
    action: types.CodeAction,
    doc: Document,
    checked: Validated,
    edits: Sequence[Edit],
    text: str,
    *,
    misfit: str,
    data: dict[str, Any],
) -> types.CodeAction:
    """The action with the rewrite and its pragmas, or disabled with the reason.

    `misfit` is the reason when a pragma would land inside the rewritten text.
    """
    found = (
        None
        if checked.withdrawn
        else rewrite_edits(doc, edits, text, checked.suggestions)
    )
    if found is None:
        action.edit = None
        action.disabled = types.CodeActionDisabled(reason=checked.withdrawn or misfit)
        return action
    action.edit = types.WorkspaceEdit(changes={doc.uri: found})
    action.data = data
    return action
