"""Light fill loops: a few units per iteration, filling data no parallel loop uses.

`for (i = 0; i < N; i++) index[i] = i - 1;` costs about two units an iteration and
reads no memory: it pays in parallel only from tens of thousands of iterations on,
and it fills a table for the serial code around it (a nest of such fills counts by
its innermost iteration: `for (j...) for (i...) w[j][i] = 0.0;`), and so does a step
of a counter or index table (`for (l = level + 1; l <= levels; l++) first[l]++;`).
Experts leave such loops serial. They do share out the fill of the arrays that
the program's parallel loops then work on (each thread
first touches the pages it will use, and the sizes are the large ones), so a light
loop keeps its pragma when a loop proved parallel elsewhere in the file shares out
one of the arrays it writes: indexes it, as data, with its own variable. A table the
parallel loops only read at their inner loops' indices (stencil weights) or only
use inside another subscript (`image[iN[i] + n * j]`, neighbour indices) is not
shared out: its fill stays serial setup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost_shapes import shape_reason
from accls.frontend import AccessKind, Loop, Ref

__all__ = ["LIGHT_UNITS", "field_store", "light_reason", "shared_out_elsewhere"]

LIGHT_UNITS = 4
"""Work units per iteration at most for a light loop: below a region's worth
(REGION_UNITS) until about five thousand iterations."""


_WORD = re.compile(r"[A-Za-z_]\w*")


def _written(loop: Loop) -> set[str]:
    return {r.name for r in loop.refs if r.is_write and (r.subscripts or r.deref)}


def _visible(analysis: FileAnalysis, loop: Loop, name: str, other: Loop) -> bool:
    """True when `name` in `other` is what `loop` writes: same function, or a global."""
    if other.function == loop.function:
        return True
    fn = analysis.source.function(other.function)
    own = {v.name for v in (*fn.params, *fn.locals)} if fn is not None else set()
    return name in {v.name for v in analysis.source.globals} and name not in own


def _shared_out(other: Loop, data: bytes) -> set[str]:
    """The arrays `other` divides between its threads: used as data at its index.

    A pointer it reads through (`*p`, `p->f`) counts too: its extent is unknown.
    A loop that reads no memory is another fill, not a kernel: it shares out nothing;
    nor does one that only steps counters (`first[l]++`).
    """
    reads = [r for r in other.refs if r.is_read and (r.subscripts or r.deref)]
    if all(_in_place(r, data) for r in reads):
        return set()
    indexed = [r for r in other.refs if r.subscripts]
    out = {r.name for r in other.refs if r.deref and not r.subscripts}
    for ref in indexed:
        if other.var is None or _inside_subscript(ref, indexed):
            continue
        if any(other.var in _WORD.findall(s.text) for s in ref.subscripts):
            out.add(ref.name)
    return out


def _inside_subscript(ref: Ref, indexed: list[Ref]) -> bool:
    """True when `ref` is part of another reference's subscript (an index table)."""
    start, end = ref.span.start_byte, ref.span.end_byte
    return any(
        o is not ref
        and o.span.start_byte <= start
        and end <= o.span.end_byte
        and (o.span.start_byte, o.span.end_byte) != (start, end)
        for o in indexed
    )


_FIELD_STORE = re.compile(rb"\s*(?:\.|->)\s*\w+(?:\s*(?:\.|->)\s*\w+)*\s*=(?!=)")


def field_store(ref: Ref, data: bytes) -> bool:
    """True when `ref` only stores a field (`a[i].d = x`): a partial write, no read."""
    if ref.kind is not AccessKind.UPDATE or not ref.subscripts:
        return False
    return _FIELD_STORE.match(data, ref.span.end_byte) is not None


_STEP_AFTER = re.compile(rb"\s*(?:\+\+|--)")
_STEP_BEFORE = re.compile(rb"(?:\+\+|--)\s*$")


def _in_place(ref: Ref, data: bytes) -> bool:
    """True when `ref` reads only the element it writes: `a[i].d = x`, `count[l]++`.

    A step of a counter or index table (`first[l]++`, `--left[k]`) is bookkeeping:
    one element per iteration, like a fill. A `+=` may be the program's work
    (`x[i] += dt * v[i]` reads more; `far[j].dist += d` is left to the model).
    """
    if ref.kind is not AccessKind.UPDATE or not ref.subscripts:
        return False
    if field_store(ref, data) or _STEP_AFTER.match(data, ref.span.end_byte):
        return True
    return (
        _STEP_BEFORE.search(data[max(0, ref.span.start_byte - 8) : ref.span.start_byte])
        is not None
    )


def shared_out_elsewhere(
    analysis: FileAnalysis,
    loop: Loop,
    written: set[str],
    setup: Callable[[Loop], bool] | None = None,
) -> bool:
    """True when a parallel loop outside `loop` shares out an array `loop` writes.

    A loop whose shape leaves it serial (one that allocates each iteration, or
    repeats), or that `setup` calls setup code, divides nothing between threads.
    """
    for other in analysis.source.loops():
        if other.id == loop.id or not analysis.of(other).parallel:
            continue
        if shape_reason(analysis.source, other) or (setup and setup(other)):
            continue
        around = other.span.start_byte <= loop.span.start_byte < other.span.end_byte
        within = loop.span.start_byte <= other.span.start_byte < loop.span.end_byte
        if around or within:
            continue
        used = _shared_out(other, analysis.source.data)
        if any(_visible(analysis, loop, n, other) for n in used & written):
            return True
    return False


def light_reason(analysis: FileAnalysis, loop: Loop, per_iteration: int | None) -> str:
    """Why `loop` is a light fill of setup data, or "".

    Light: at most LIGHT_UNITS per iteration (of the innermost loop, for a nest,
    its loops' control included), and it reads no memory (it stores values computed
    from its variables and invariants, or steps the counters it writes: `n[l]++`).
    """
    if per_iteration is None or per_iteration > LIGHT_UNITS:
        return ""
    written = _written(loop)
    data = analysis.source.data
    reads = [r for r in loop.refs if r.is_read and (r.subscripts or r.deref)]
    if not written or any(not _in_place(r, data) for r in reads):
        return ""  # it reads memory: a copy or a kernel, not a fill
    if shared_out_elsewhere(analysis, loop, written):
        return ""
    names = ", ".join(f"`{n}`" for n in sorted(written))
    return (
        f"light loop: about {per_iteration} work units per "
        f"{'innermost ' if loop.children else ''}iteration, filling "
        f"{names}, which no parallel loop of the file shares out: setup code, likely "
        "slower in parallel below tens of thousands of iterations"
    )
