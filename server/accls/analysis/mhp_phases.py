"""The barrier phases of a parallel region: where they start, and which are one."""

from __future__ import annotations

from bisect import bisect_right

from networkx.utils import UnionFind

from accls.analysis.mhp_constructs import contains, first_word, pragma_at, within
from accls.analysis.mhp_guards import thread_branch
from accls.frontend import Call, Region, SourceFile, Span

__all__ = ["barrier_phases"]

_WORKSHARING = frozenset({"for", "sections", "single", "loop", "scope"})


def barrier_phases(
    region: Region,
    inner: list[Region],
    source: SourceFile,
    calls: list[Call],
    extra: tuple[tuple[int, int], ...] = (),
) -> tuple[list[int], UnionFind[int], list[tuple[int, Span, int]]]:
    """Phase bounds (barriers, ends of worksharing), their union-find, wrapped loops.

    `extra` adds bounds (position, line) of hand-made barriers.

    A `barrier` under an `if` whose test names the thread bounds nothing: not every
    thread meets it. The code after a loop body's last barrier runs alongside the
    code before its first barrier in the next iteration: one phase.
    """
    tasks = [c for c in inner if first_word(c) in ("task", "taskloop")]
    bounds: list[int] = [c.span.start_byte for c in calls]
    lines: dict[int, int] = {c.span.start_byte: c.span.line for c in calls}
    for at, line in extra:  # hand-made barriers every thread meets once
        bounds.append(at)
        lines[at] = line
    for c in inner:
        if any(within(c, t) for t in tasks):
            continue
        first = first_word(c)
        if first == "barrier":
            if thread_branch(region, source, pragma_at(c)):
                continue  # not every thread meets it (non-conforming): no phase
            bounds.append(pragma_at(c))
            lines[pragma_at(c)] = c.span.line
        elif first in _WORKSHARING and c.directive.clause("nowait") is None:
            bounds.append(c.span.end_byte)
            lines[c.span.end_byte] = c.span.end[0] + 1
    bounds.sort()
    phases: UnionFind[int] = UnionFind(range(len(bounds) + 1))
    wrapped: list[tuple[int, Span, int]] = []
    for branch in source.branches:
        span = branch.span
        if branch.kind != "loop" or not contains(region, span.start_byte):
            continue
        inside = [b for b in bounds if span.start_byte <= b < span.end_byte]
        if inside and not any(contains(t, span.start_byte) for t in tasks):
            # The code after the loop body's last barrier runs alongside the code
            # before its first barrier in the next iteration: one phase.
            lo = bisect_right(bounds, span.start_byte)
            hi = bisect_right(bounds, span.end_byte - 1)
            phases.union(lo, hi)
            wrapped.append((lo, span, lines[inside[-1]]))
    merged = [(phases[lo], loop, barrier) for lo, loop, barrier in wrapped]
    return bounds, phases, merged
