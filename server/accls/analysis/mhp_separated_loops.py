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
    return [lp for lp in loops if not _separated(lp, bounds, branches, source)]


def _separated(
    loop: Span, bounds: list[int], branches: Sequence[Branch], source: SourceFile
) -> bool:
    start, end = loop.start_byte, loop.end_byte
    if _JUMP.search(source.data[start:end]):
        return False
    inner = [
        b.span
        for b in branches
        if start <= b.span.start_byte and b.span.end_byte <= end and b.span != loop
    ]
    return any(
        start <= at < end and not any(s.start_byte <= at < s.end_byte for s in inner)
        for at in bounds
    )
