"""What every stage prints: one-line errors, summaries and progress bars."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["Bar", "fail", "progress", "say"]

T = TypeVar("T")


def fail(message: str) -> int:
    """Print `accls-train: error: MESSAGE` to stderr and return exit status 2."""
    print(f"accls-train: error: {message}", file=sys.stderr)
    return 2


def say(message: str) -> None:
    """Print a summary line to stdout."""
    print(message, flush=True)


def progress(items: Iterable[T], *, total: int | None = None, desc: str) -> Iterator[T]:
    """`items` with a tqdm bar on stderr when it is a terminal (tqdm is optional)."""
    try:
        from tqdm import tqdm
    except ImportError:
        yield from items
        return
    bar = tqdm(
        items, total=total, desc=desc, file=sys.stderr, disable=not sys.stderr.isatty()
    )
    yield from bar


class Bar:
    """A counting progress bar on stderr (tqdm when present and a terminal)."""

    def __init__(self, total: int, desc: str) -> None:
        self._bar: Any = None
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._bar = tqdm(
            total=total, desc=desc, file=sys.stderr, disable=not sys.stderr.isatty()
        )

    def update(self, count: int = 1) -> None:
        """Advance by `count`."""
        if self._bar is not None:
            self._bar.update(count)

    def close(self) -> None:
        """Finish the bar."""
        if self._bar is not None:
            self._bar.close()
