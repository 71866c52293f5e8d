"""The command a resolved action carries: the client runs it once it applied the edit.

The feedback feature (`features/feedback.py`) handles the command; code actions
only build it.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from accls.server.documents import Document
from accls.server.suggestions import BufferAnalysis
from accls.suggest import Suggestion

__all__ = ["RECORD_APPLIED", "applied_command"]

RECORD_APPLIED = "accls.recordApplied"


def _prompt(analysed: BufferAnalysis, s: Suggestion) -> str:
    from accls.suggest.prompt import build_prompt

    return build_prompt(analysed.source, s.loop, s.options)


def applied_command(
    doc: Document,
    analysed: BufferAnalysis,
    top: Suggestion,
    inserts: Sequence[tuple[int, str]],
) -> types.Command | None:
    """The command that records `top` once the client has applied the edit."""
    if top.pragma is None:
        return None
    pragma = top.pragma.render()
    line = None
    added = 0  # lines inserted above the current insertion point
    for offset, text in inserts:
        if pragma in text and line is None:
            line = (
                doc.index.line_of(offset)
                + added
                + text[: text.index(pragma)].count("\n")
            )
        added += text.count("\n")
    if line is None:
        return None
    data = analysed.source.data
    loop_text = data[top.loop.span.start_byte : top.loop.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    return types.Command(
        title="Record the applied suggestion",
        command=RECORD_APPLIED,
        arguments=[
            {
                "uri": doc.uri,
                "model": top.options.dialect.value,
                "target": top.options.target.value,
                "source": top.source,
                "prompt": _prompt(analysed, top),
                "loop": loop_text,
                "pragma": pragma,
                "line": line,
            }
        ],
    )
