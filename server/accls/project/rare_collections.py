"""Fewer garbage collections while the index summarises a project.

A cold build keeps every parsed file for its later rounds: hundreds of thousands
of live objects and no garbage. CPython's collector walks all of them each time
the survivors grow by a quarter, which took about a third of a cold index's
time. While the index works, the youngest generation's threshold is raised (as
mypy does for its builds), so the collector runs rarely; reference counting
still frees everything at once, and only cycles wait for the next collection.
The collector is the process's: builds that overlap (the server's background
build and an update) share one raised threshold, restored when the last ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["rare_collections"]

_YOUNG = 50_000  # allocations between collections of the youngest generation

# The collector is one per process, so what it was set to before is too.
_lock = threading.Lock()
_before: list[tuple[int, int, int]] = []  # one entry per build under way


@contextmanager
def rare_collections() -> Iterator[None]:
    """Collect garbage rarely inside the block; the thresholds are restored after."""
    with _lock:
        _before.append(gc.get_threshold())
        young, middle, old = _before[0]
        if 0 < young < _YOUNG:  # 0: the user turned automatic collection off
            gc.set_threshold(_YOUNG, middle, old)
    try:
        yield
    finally:
        with _lock:
            first = _before[0]
            _before.pop()
            if not _before:
                gc.set_threshold(*first)
