"""ACC101 in an `ordered(n)` doacross nest: a dependence no chain of sinks orders.

In `#pragma omp for ordered(2)` over `(i, j)`, `#pragma omp ordered depend(sink:
i - 1, j)` makes iteration `(i, j)` wait until `(i - 1, j)` has passed its
`depend(source)`; waits chain, so the iterations a cell is ordered after are
those a sum of sink vectors away. A carried dependence of an exact distance
vector that no such sum makes, with both accesses between the first sink and
the source, is a race: a sweep that reads its west neighbour `psi[i][j - 1]`
but waits only on `(i - 1, j)` runs beside the iteration that writes it. What is
not this shape (a symbolic distance, a sink that is not `var - c` or `var + c`,
an access outside the waits) stays with the doacross rule: quiet.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator

from accls.analysis.analyze import FileAnalysis
from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.analysis.model import Dependence
from accls.analysis.pragma_scope import associated_loops
from accls.frontend import Directive, Loop, Region, SourceFile, Span

__all__ = ["doacross_nest_findings", "ordered_regions"]

_TERM = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:([+-])\s*(\d+))?\s*$")
_STEPS = 64  # sums of at most this many sink vectors are tried


def ordered_regions(source: SourceFile, loop: Loop) -> Iterator[tuple[Region, Span]]:
    """The `ordered` constructs in `loop`'s body, with their directives' spans."""
    for region in source.constructs:
        span = region.directive.span
        words = region.directive.name.split()
        if not words or words[0] != "ordered" or span is None:
            continue
        if loop.body.start_byte <= span.start_byte < loop.body.end_byte:
            yield region, span


def _sink_vector(args: str, names: tuple[str, ...]) -> tuple[int, ...] | None:
    """`sink: i - 1, j` as the distance vector (1, 0); None if not that shape."""
    head, _, rest = args.partition(":")
    terms = rest.split(",")
    if head.strip() != "sink" or len(terms) != len(names):
        return None
    out: list[int] = []
    for term, name in zip(terms, names, strict=True):
        m = _TERM.match(term)
        if m is None or m.group(1) != name:
            return None
        value = int(m.group(3) or 0)
        out.append(value if m.group(2) == "-" else -value)
    return tuple(out)


def _pragma_end(region: Region) -> int:
    span = region.directive.span
    return span.end_byte if span is not None else region.span.end_byte


def _waits(
    source: SourceFile, inner: Loop, names: tuple[str, ...]
) -> tuple[set[tuple[int, ...]], int, int] | None:
    """(sink vectors, end of the first sink, start of the source) of the nest."""
    sinks: set[tuple[int, ...]] = set()
    first: int | None = None
    post: int | None = None
    for region, span in ordered_regions(source, inner):
        for clause in region.directive.clauses:
            args = (clause.args or "").strip()
            if clause.name != "depend":
                return None
            if args == "source":
                if post is not None:
                    return None
                post = span.start_byte
                continue
            vector = _sink_vector(args, names)
            if vector is None or not any(vector):
                return None
            sinks.add(vector)
            end = _pragma_end(region)
            first = end if first is None else min(first, end)
    if post is None or first is None:
        return None
    return sinks, first, post


def _made(target: tuple[int, ...], sinks: set[tuple[int, ...]]) -> bool:
    """True when `target` is a sum of sink vectors (a chain of waits)."""
    bound = sum(abs(t) for t in target) + max(sum(abs(v) for v in s) for s in sinks)
    seen = {tuple(0 for _ in target)}
    todo = deque([(next(iter(seen)), 0)])
    while todo:
        here, steps = todo.popleft()
        if here == target:
            return True
        if steps == _STEPS:
            continue
        for vector in sinks:
            nxt = tuple(a + b for a, b in zip(here, vector, strict=True))
            if nxt not in seen and sum(abs(c) for c in nxt) <= bound:
                seen.add(nxt)
                todo.append((nxt, steps + 1))
    return False


def _vector(dep: Dependence, nest: tuple[Loop, ...]) -> tuple[int, ...] | None:
    """The dependence's distance over the nest, lexicographically positive."""
    by_loop = dict(zip(dep.loops, dep.distance, strict=False))
    out: list[int] = []
    for loop in nest:
        dist = by_loop.get(loop.id)
        if not isinstance(dist, int):
            return None
        out.append(dist)
    lead = next((c for c in out if c), 0)
    return tuple(-c for c in out) if lead < 0 else tuple(out)


def doacross_nest_findings(
    analysis: FileAnalysis, loop: Loop, directive: Directive
) -> list[Finding]:
    """ACC101 for an exact dependence the sinks of an `ordered(n)` nest miss."""
    count = directive.clause("ordered")
    depth = (count.args or "").strip() if count is not None else ""
    if not depth.isdigit() or int(depth) < 2:
        return []
    nest = associated_loops(loop, int(depth))
    names = tuple(lp.var for lp in nest if lp.var)
    if len(nest) != int(depth) or len(names) != len(nest):
        return []
    found = _waits(analysis.source, nest[-1], names)
    if found is None:
        return []
    sinks, start, end = found
    deps = {
        (d.source.start_byte, d.sink.start_byte, d.distance): d
        for lp in nest
        for d in analysis.of(lp).dependences
    }
    for dep in deps.values():
        vector = _vector(dep, nest)
        if not dep.exact or vector is None or not any(vector):
            continue
        early, late = dep.source.start_byte, dep.sink.start_byte
        if not (start <= early < end and start <= late < end):
            return []  # an access outside the waits: not followed
        if _made(vector, sinks):
            continue
        apart = ", ".join(str(c) for c in vector)
        return [
            finding(
                CARRIED_DEPENDENCE,
                dep.source,
                directive=directive.name,
                line=loop.line,
                dep=f"`{dep.array}` written at line {dep.source.line} is used at "
                f"line {dep.sink.line} by the iteration ({apart}) later, and no "
                "chain of its `depend(sink)` waits orders iterations that far apart",
                source_line=dep.source.line,
                sink_line=dep.sink.line,
            )
        ]
    return []
