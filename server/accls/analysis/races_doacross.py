"""ACC101 in a doacross loop: a dependence that `depend(sink: ..)` does not cover.

In `#pragma omp for ordered(1)`, `#pragma omp ordered depend(sink: i - d)` makes
iteration `i` wait until iteration `i - d` has passed its `depend(source)`. What
lies between the sink and the source of iteration `i` therefore runs after that
of every iteration `i - k` where `k` is a sum of sink distances (waits chain), and
may run at the same time as that of any other earlier iteration. A carried
dependence of exact distance `k` between two accesses both inside that span is a
race when no sum of the sink distances makes `k`; and one whose earlier access
follows the iteration's `depend(source)`, or whose later access precedes its
sink, is ordered by no wait. `ordered(n)` nests go to `races_doacross_nest`;
anything else (symbolic distances) stays with the doacross rule: quiet.
"""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.analysis.model import Dependence
from accls.analysis.races_doacross_nest import (
    doacross_nest_findings,
    ordered_regions,
)
from accls.frontend import Directive, Loop, Region, SourceFile

__all__ = ["doacross_findings"]

_SINK = re.compile(r"^\s*sink\s*:\s*([A-Za-z_]\w*)\s*-\s*(\d+)\s*$")


def _doacross(source: SourceFile, loop: Loop) -> tuple[set[int], int, int] | None:
    """(sink distances, end of the first sink, start of the source) of the loop."""
    sinks: list[Region] = []
    posts: list[Region] = []
    for region, _span in ordered_regions(source, loop):
        for clause in region.directive.clauses:
            args = (clause.args or "").strip()
            if clause.name != "depend":
                return None
            if args == "source":
                posts.append(region)
            elif (m := _SINK.match(args)) is None or m.group(1) != loop.var:
                return None
            else:
                sinks.append(region)
    if len(posts) != 1 or not sinks:
        return None
    distances = set()
    for region in sinks:
        for clause in region.directive.clauses:
            m = _SINK.match(clause.args or "")
            if m is not None:
                distances.add(int(m.group(2)))
    first = min(pragma_end(r) for r in sinks)
    post = posts[0].directive.span
    if post is None or 0 in distances:
        return None
    return distances, first, post.start_byte


def pragma_end(region: Region) -> int:
    span = region.directive.span
    return span.end_byte if span is not None else region.span.end_byte


def _made(k: int, distances: set[int]) -> bool:
    """True when `k` is a sum of the sink distances (a chain of waits)."""
    reach = [True] + [False] * k
    for n in range(1, k + 1):
        reach[n] = any(n >= d and reach[n - d] for d in distances)
    return reach[k]


def _distance(dep: Dependence, loop: Loop) -> int | None:
    for dist, lid in zip(dep.distance, dep.loops, strict=False):
        if lid == loop.id:
            return abs(dist) if isinstance(dist, int) else None
    return None


def doacross_findings(
    analysis: FileAnalysis, loop: Loop, directive: Directive
) -> list[Finding]:
    """ACC101 for an exact dependence the sinks of an `ordered(1)` loop miss."""
    count = directive.clause("ordered")
    if count is not None and (count.args or "1").strip() != "1":
        return doacross_nest_findings(analysis, loop, directive)
    if count is None or not loop.var:
        return []
    found = _doacross(analysis.source, loop)
    if found is None:
        return []
    distances, start, end = found
    sinks = ", ".join(f"`{loop.var} - {d}`" for d in sorted(distances))
    for dep in analysis.of(loop).dependences:
        k = _distance(dep, loop)
        if not dep.exact or k is None or k == 0:
            continue
        early, late = dep.source.start_byte, dep.sink.start_byte
        if _made(k, distances):
            # The later iteration waits at its sink for what the earlier one did
            # before its `depend(source)`: nothing else.
            if early < end and late >= start:
                continue
            why = (
                f"the earlier iteration posts `depend(source)` before line "
                f"{dep.source.line}"
                if early >= end
                else f"line {dep.sink.line} runs before the `depend(sink: {sinks})` "
                "wait"
            )
        elif not (start <= early < end and start <= late < end):
            return []  # an access outside the waits: not followed
        else:
            why = f"the `depend(sink: {sinks})` waits do not order iterations {k} apart"
        return [
            finding(
                CARRIED_DEPENDENCE,
                dep.source,
                directive=directive.name,
                line=loop.line,
                dep=f"`{dep.array}` written at line {dep.source.line} is used at "
                f"line {dep.sink.line} by the iteration {k} later, and {why}",
                source_line=dep.source.line,
                sink_line=dep.sink.line,
            )
        ]
    return []
