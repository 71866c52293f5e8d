"""The elements a sized library call in a region reaches: `memset(buf + t * CH, ..)`.

`memset`, `memcpy`, `memmove` (and the other calls the table of effects lists
with a size) write or read `a[e]` to `a[e + n - 1]` when handed `a + e` or
`&a[e]` with a byte count `n * sizeof` the element (`range_arguments`). In a
parallel region that range is an access of its own: `a[e + k]` with `k` a
sequential loop from 0 to `n - 1` around the call, so two threads' ranges are
compared as sections, like any other subscripts. Only a count the macros fold
to a literal is modelled; other calls stay as they were (not compared).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from accls.analysis.macro_fold import folded_poly
from accls.analysis.mhp_access import Access, Scene, region_access
from accls.analysis.mhp_bounds import Sweep
from accls.analysis.mhp_constructs import contains
from accls.analysis.range_arguments import RANGE_VAR, range_write
from accls.frontend import Function, Poly, Ref, Region, SourceFile, library_function
from accls.frontend.exprs import expression_poly

__all__ = ["range_accesses"]

_MARK = " + [0, "
"""How `range_write` writes the range's offset: `e + [0, n)`."""


def range_accesses(
    scene: Scene, fn: Function, source: SourceFile, dropped: Iterable[Region]
) -> list[Access]:
    """The range each library call of the region writes or reads, as an access."""
    region, dropped = scene.region, tuple(dropped)
    start, end = region.span.start_byte, region.span.end_byte
    macros = dict(scene.env.constants)
    out: list[Access] = []
    for call in fn.call_sites:
        at = call.span.start_byte
        known = library_function(call.name)
        if not start <= at < end or known is None or source.function(call.name):
            continue
        if any(contains(d, at) for d in dropped):
            continue
        for index in sorted({*known.writes, *known.reads}):
            found = range_write(call, index, fn.refs, fn, source)
            shaped = _shaped(found, macros) if found is not None else None
            if shaped is None:
                continue
            ref, count = shaped
            last = (("1", count - 1),)
            sweep = Sweep(RANGE_VAR, at, call.span.end_byte, (("1", 0),), last)
            env = replace(scene.env, sweeps=(*scene.env.sweeps, sweep))
            made = region_access(replace(scene, env=env), ref, at, None)
            out.extend([made] if made is not None else [])
    return out


def _shaped(ref: Ref, macros: dict[str, int]) -> tuple[Ref, int] | None:
    """The range's reference with its start folded, and its literal count."""
    (sub,) = ref.subscripts
    head, mark, tail = sub.text.rpartition(_MARK)
    if not mark or not tail.endswith(")"):
        return None
    count = folded_poly(tail[:-1], macros, expression_poly(tail[:-1]))
    first = folded_poly(head, macros, expression_poly(head))
    if count is None or count.terms == () or first is None:
        return None
    terms = dict(count.terms)
    if set(terms) != {()} or terms[()] < 1:
        return None  # a count with names: not a literal
    poly = first + Poly.sym(RANGE_VAR)
    return replace(ref, subscripts=(replace(sub, poly=poly),)), terms[()]
