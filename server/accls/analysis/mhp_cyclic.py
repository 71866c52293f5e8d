"""Loops that deal iterations to the threads in turn: `for (i = t; i < N; i += n)`.

With `t = omp_get_thread_num()` and `n = omp_get_num_threads()`, thread `t` runs
`i = t, t + n, t + 2n, ...` below a known `N`. Every thread whose number is below
`N` runs the body at least once, so the header is no doubt about which threads
run it, and the values of `i` each thread takes are known for a team size.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.nest_views import integer_macros
from accls.frontend import Region, SourceFile

__all__ = ["Cyclic", "cyclic_loops"]


@dataclass(frozen=True, slots=True)
class Cyclic:
    """One dealing loop: its variable, body start, and one past its last value."""

    var: str
    body: int
    stop: int


def cyclic_loops(
    region: Region, source: SourceFile, tids: frozenset[str], sizes: frozenset[str]
) -> tuple[Cyclic, ...]:
    """The region's loops from a thread number by the team size to a known bound."""
    if not tids or not sizes:
        return ()
    constants = integer_macros(source.macros)
    start, end = region.span.start_byte, region.span.end_byte
    loops = [lp for lp in source.loops() if start <= lp.id < end and lp.var]
    out: list[Cyclic] = []
    for loop in loops:
        upper = loop.upper_text.strip()
        stop = int(upper) if upper.isdigit() else constants.get(upper)
        if stop is None or loop.cond_op not in ("<", "<="):
            continue
        if loop.lower_text.strip() not in tids or loop.step_symbol not in sizes:
            continue
        if sum(lp.var == loop.var for lp in loops) != 1:
            continue  # one loop per name: a subscript's variable is this one
        inside = loop.body.start_byte
        if any(
            r.name == loop.var and r.is_write
            for r in loop.refs
            if r.span.start_byte >= inside
        ):
            continue
        if loop.var is not None:
            out.append(Cyclic(loop.var, inside, stop + (loop.cond_op == "<=")))
    return tuple(out)
