"""Serial-bound loops: a parallel loop that is a small part of its outer iteration.

`for (iter...) { <a large loop that must stay serial>; for (row...) v[row] += 1; }`:
sharing out the small loop saves at most half of its own time per outer iteration,
while the serial loop beside it holds most of the iteration's work. With two threads
the program gains a few percent at best (Amdahl), and pays a region or a barrier per
outer iteration; on a node where another process keeps a core busy it runs slower
than serially. The loop keeps its pragma only when the parallel loops of the outer
body hold more work than the rest of it.
"""

from __future__ import annotations

from collections.abc import Callable

from accls.analysis.analyze import FileAnalysis
from accls.frontend import Loop, Poly

__all__ = ["serial_share_reason"]

Work = Callable[[Loop, bool], Poly | None]  # (loop, one iteration only) -> units


def _enclosing(analysis: FileAnalysis, loop: Loop) -> Loop | None:
    """The innermost loop of its function around `loop`."""
    best: Loop | None = None
    for outer in analysis.source.loops():
        if (
            outer.id != loop.id
            and outer.function == loop.function
            and outer.span.start_byte <= loop.span.start_byte
            and loop.span.end_byte <= outer.span.end_byte
            and (best is None or outer.span.start_byte >= best.span.start_byte)
        ):
            best = outer
    return best


def serial_share_reason(
    analysis: FileAnalysis, loop: Loop, work: Work, at: Callable[[Poly], float]
) -> str:
    """Why `loop` is a small parallel part of a serial outer iteration, or "".

    `loop` counts as parallel (it is the candidate), and so do the loops beside it
    that the analysis proves parallel. `work(l, True)` is the units of one
    iteration of `l`, `work(l, False)` those of one execution; `at` evaluates a
    polynomial at the sizes the model assumes.
    """
    outer = _enclosing(analysis, loop)
    if outer is None or analysis.of(outer).parallel:
        return ""
    body = work(outer, True)
    if body is None:
        return ""
    parallel = Poly()
    for child in outer.children:
        if child.id == loop.id or analysis.of(child).parallel:
            found = work(child, False)
            if found is None:
                return ""
            parallel = parallel + found
    serial = at(body - parallel)
    if at(parallel) <= 0 or serial <= at(parallel):
        return ""
    share = at(parallel) / max(at(body), 1.0)
    amount = f"about {share:.0%}" if share >= 0.01 else "under 1%"
    return (
        f"serial-bound: the parallel loops hold {amount} of the work of "
        f"an iteration of the loop at line {outer.line}; the rest runs serially, "
        "so a region each iteration gains little and may lose"
    )
