"""The loops of a region whose consecutive iterations every thread meets a barrier in.

A `single nowait` inside a loop runs once per iteration, maybe on another thread
each time: two instances race unless a barrier lies between them. One does when
the loop body holds a barrier (or the end of a worksharing construct without
`nowait`) that every iteration passes: not under a branch or an inner loop of the
body, and with no `continue`, `break`, `goto` or `return` in the body that could
skip it. Any other loop keeps its iterations in one phase.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from accls.frontend import Branch, SourceFile, Span

__all__ = ["unseparated_loops"]

_JUMP = re.compile(rb"\b(?:continue|break|goto|return|longjmp)\b")


def unseparated_loops(
    loops: list[Span],
    bounds: list[int],
    branches: Sequence[Branch],
    source: SourceFile,
) -> list[Span]:
    """The loops of `loops` whose next iteration may start before a barrier."""
    spans = sorted((b.span for b in branches), key=lambda s: s.start_byte)
    starts = [s.start_byte for s in spans]
    at = sorted(bounds)
    return [lp for lp in loops if not _separated(lp, at, spans, starts, source)]


def _separated(
    loop: Span,
    bounds: list[int],
    spans: list[Span],
    starts: list[int],
    source: SourceFile,
) -> bool:
    """`bounds` sorted; `spans` the branches' spans sorted by `starts`."""
    start, end = loop.start_byte, loop.end_byte
    if _JUMP.search(source.data, start, end):
        return False
    inner = [
        s
        for s in spans[bisect_left(starts, start) : bisect_left(starts, end)]
        if s.end_byte <= end and s != loop
    ]
    return any(
        not any(s.start_byte <= at < s.end_byte for s in inner)
        for at in bounds[bisect_left(bounds, start) : bisect_left(bounds, end)]
    )
