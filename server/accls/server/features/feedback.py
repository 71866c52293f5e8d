"""The feedback hook: record applied code actions and the user's later edits.

Opt-in (`accls.feedback.enabled`). A resolved action carries the command
`accls.recordApplied`; the client runs it after applying the edit. The server then
follows the inserted pragma's line through later edits and records its new text
whenever an edit leaves a different `#pragma` there.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from accls.feedback import FeedbackStore
from accls.server.app import AcclsServer
from accls.server.documents import Document, LineShift
from accls.server.suggestions import Analysed
from accls.suggest import Suggestion

__all__ = [
    "RECORD_APPLIED",
    "applied_command",
    "forget",
    "record_applied",
    "track_edits",
]

log = logging.getLogger(__name__)

RECORD_APPLIED = "accls.recordApplied"


@dataclass(slots=True)
class _Tracked:
    """An applied pragma the server follows: its record id, line and text."""

    applied_id: int
    line: int
    pragma: str


def _prompt(analysed: Analysed, s: Suggestion) -> str:
    from accls.suggest.prompt import build_prompt

    return build_prompt(analysed.source, s.loop, s.options)


def applied_command(
    doc: Document,
    analysed: Analysed,
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
                "model": top.options.model.value,
                "target": top.options.target.value,
                "source": top.source,
                "prompt": _prompt(analysed, top),
                "loop": loop_text,
                "pragma": pragma,
                "line": line,
            }
        ],
    )


def _store(ls: AcclsServer) -> FeedbackStore:
    path = ls.settings.feedback.path
    if ls.feedback_store is None or ls.feedback_path != path:
        if ls.feedback_store is not None:
            ls.feedback_store.close()
        ls.feedback_store = FeedbackStore(Path(path) if path else None)
        ls.feedback_path = path
    return ls.feedback_store


def record_applied(ls: AcclsServer, args: Sequence[Any]) -> dict[str, Any]:
    """Handle `accls.recordApplied`: store the action and follow its line."""
    if not ls.settings.feedback.enabled:
        return {"recorded": False, "reason": "feedback is off (accls.feedback.enabled)"}
    arg = args[0] if args else None
    fields = ("uri", "model", "target", "source", "prompt", "loop", "pragma")
    if (
        not isinstance(arg, dict)
        or not all(isinstance(arg.get(k), str) for k in fields)
        or not isinstance(arg.get("line"), int)
    ):
        raise ValueError(f"{RECORD_APPLIED}: expected one object with {fields}, line")
    applied_id = _store(ls).record_applied(**{k: arg[k] for k in fields})
    ls.followed.setdefault(arg["uri"], []).append(
        _Tracked(applied_id, arg["line"], arg["pragma"])
    )
    return {"recorded": True, "id": applied_id}


def _line_text(doc: Document, line: int) -> str | None:
    index = doc.index
    if not 0 <= line < index.line_count:
        return None
    return index.line_bytes(line).decode("utf-8", errors="replace").strip()


def track_edits(ls: AcclsServer, doc: Document, shifts: Sequence[LineShift]) -> None:
    """Follow applied pragmas through an edit; record their new text."""
    followed = ls.followed.get(doc.uri)
    if not followed or not shifts:
        return
    for item in followed:
        touched = False
        for shift in shifts:
            if shift.last < item.line:
                item.line += shift.new_lines - (shift.last - shift.first + 1)
            elif shift.first <= item.line:
                touched = True
        if not touched:
            continue
        text = _line_text(doc, item.line)
        if text is None or not text.startswith("#pragma") or text == item.pragma:
            continue
        try:
            _store(ls).record_edit(item.applied_id, text)
        except Exception as exc:  # the store is best effort: never break editing
            log.warning("feedback: cannot record the edit: %s", exc)


def forget(ls: AcclsServer, uri: str) -> None:
    """Stop following the pragmas of a closed document."""
    ls.followed.pop(uri, None)
