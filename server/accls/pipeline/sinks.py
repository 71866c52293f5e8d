"""Where the pipeline's warnings go: a sink the caller owns (stderr, a log)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["OnceSink", "WarningSink", "discard"]


class WarningSink(Protocol):
    """Takes one warning, in words, for the user."""

    def __call__(self, message: str, /) -> None:
        """Report `message`."""


def discard(message: str, /) -> None:
    """A sink for callers that read `SuggestResult.warnings` instead."""


class OnceSink:
    """Passes each distinct warning on once, however often it is reported."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self._emit = emit
        self._seen: set[str] = set()

    def __call__(self, message: str, /) -> None:
        """Emit `message` unless it was emitted before."""
        if message not in self._seen:
            self._seen.add(message)
            self._emit(message)
