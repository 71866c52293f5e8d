"""The feedback hook: record applied code actions and the user's later edits.

Opt-in (`accls.feedback.enabled`). A resolved action carries the command
`accls.recordApplied` (`offers.applied_command`); the client runs it after
applying the edit. The server then follows the inserted pragma's line through
later edits and records its new text whenever an edit leaves a different
`#pragma` there.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from accls.feedback import FeedbackError, FeedbackStore
from accls.server.documents import Document, LineShift
from accls.server.language_server import AcclsServer
from accls.server.offers import RECORD_APPLIED

__all__ = ["register"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Tracked:
    """An applied pragma the server follows: its record id, line and text."""

    applied_id: int
    line: int
    pragma: str


class _Feedback:
    """The feedback store (opened on first use) and the pragmas it follows."""

    def __init__(self, ls: AcclsServer) -> None:
        self._ls = ls
        self._store: FeedbackStore | None = None
        self._path = ""
        self._followed: dict[str, list[_Tracked]] = {}  # applied pragmas, by URI

    def store(self) -> FeedbackStore:
        """The store at the configured path (reopened when the path changes)."""
        path = self._ls.settings.feedback.path
        if self._store is None or self._path != path:
            if self._store is not None:
                self._store.close()
            self._store = FeedbackStore(Path(path) if path else None)
            self._path = path
        return self._store

    def record_applied(self, args: Sequence[Any]) -> dict[str, Any]:
        """Handle `accls.recordApplied`: store the action and follow its line."""
        if not self._ls.settings.feedback.enabled:
            return {
                "recorded": False,
                "reason": "feedback is off (accls.feedback.enabled)",
            }
        arg = args[0] if args else None
        fields = ("uri", "model", "target", "source", "prompt", "loop", "pragma")
        if (
            not isinstance(arg, dict)
            or not all(isinstance(arg.get(k), str) for k in fields)
            or not isinstance(arg.get("line"), int)
        ):
            raise ValueError(
                f"{RECORD_APPLIED}: expected one object with {fields}, line"
            )
        applied_id = self.store().record_applied(**{k: arg[k] for k in fields})
        self._followed.setdefault(arg["uri"], []).append(
            _Tracked(applied_id, arg["line"], arg["pragma"])
        )
        return {"recorded": True, "id": applied_id}

    def track_edits(self, doc: Document, shifts: Sequence[LineShift]) -> None:
        """Follow applied pragmas through an edit; record their new text."""
        followed = self._followed.get(doc.uri)
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
                self.store().record_edit(item.applied_id, text)
            except Exception as exc:  # the store is best effort: never break editing
                log.warning("feedback: cannot record the edit: %s", exc)

    def forget(self, uri: str) -> None:
        """Stop following the pragmas of a closed document."""
        self._followed.pop(uri, None)

    def close(self) -> None:
        """Close the store (at shutdown)."""
        if self._store is not None:
            self._store.close()
            self._store = None


def _line_text(doc: Document, line: int) -> str | None:
    index = doc.index
    if not 0 <= line < index.line_count:
        return None
    return index.line_bytes(line).decode("utf-8", errors="replace").strip()


def register(server: AcclsServer) -> None:
    """`accls.recordApplied`, and following applied pragmas through edits."""
    state = _Feedback(server)
    server.events.changed.connect(state.track_edits)
    server.events.closed.connect(state.forget)
    server.events.shutdown.connect(state.close)

    @server.command(RECORD_APPLIED)
    def record_applied(ls: AcclsServer, *args: Any) -> dict[str, Any]:
        try:
            return state.record_applied(args)
        except (ValueError, FeedbackError) as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
