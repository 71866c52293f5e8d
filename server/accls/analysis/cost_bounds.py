"""A bound on a trip count from the arrays a loop indexes.

`for (i = 0; i < k; i++) s *= p[i];` with `int p[NMAX]` runs at most NMAX times:
each iteration reads `p[i]`, and a program whose loop ran further would read
outside `p`. So a declared extent bounds a trip count that the bounds leave open;
the cost model uses the bound to see that a loop is small whatever `k` is.
Parameters are left out (an array parameter is a pointer: its extent promises
nothing), and so are subscripts that read another array.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.cost_features import fmt_units
from accls.frontend import Loop, Poly, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = ["extent_cap", "few_iterations_reason", "outer_range_reason"]


def _declared(source: SourceFile, loop: Loop) -> dict[str, Var]:
    """The arrays `loop` can see by name, parameters left out."""
    decls: dict[str, Var] = {v.name: v for v in source.globals}
    fn = source.function(loop.function)
    if fn is not None:
        decls |= {v.name: v for v in fn.locals}
    decls |= {v.name: v for inner in loop.walk() for v in inner.locals}
    return {n: v for n, v in decls.items() if v.dims and v.scope != "param"}


def _extent(text: str | None, values: Mapping[str, Poly]) -> int | None:
    poly = expression_poly(text) if text else None
    if poly is None:
        return None
    poly = poly.substitute(dict(values))
    return poly.constant if poly.is_constant and poly.constant > 0 else None


def extent_cap(
    source: SourceFile, loop: Loop, values: Mapping[str, Poly]
) -> tuple[int, str] | None:
    """The fewest iterations an array the loop indexes allows, and that array."""
    if loop.var is None or loop.step not in (1, -1):
        return None
    arrays = _declared(source, loop)
    best: tuple[int, str] | None = None
    for ref in loop.refs:
        var = arrays.get(ref.name)
        if var is None or var.unknown_shape or ref.deref or ref.member:
            continue
        for k, sub in enumerate(ref.subscripts):
            if k >= len(var.dims) or sub.poly is None or sub.indirect:
                continue
            coeff = sub.poly.coeff(loop.var)
            if coeff == 0 or not sub.poly.is_affine:
                continue
            if any(n != loop.var for mono, _ in sub.poly.terms for n in mono):
                continue  # other variables shift it: not a bound on its own
            extent = _extent(var.dims[k], values)
            if extent is None:
                continue
            cap = (extent - 1) // abs(coeff) + 1
            if best is None or cap < best[0]:
                best = (cap, ref.name)
    return best


def outer_range_work(
    source: SourceFile, loop: Loop, work: Poly, values: Mapping[str, Poly]
) -> tuple[int, str] | None:
    """The most `work` can be when it depends only on enclosing loops' variables.

    `for (k = 0; k < i; k++)` inside `for (i = 0; i < 16; i++)`: its work is affine
    in `i`, which runs over constants, so the largest value at a corner of their
    ranges bounds it. Returns that value and the names it took, or None.
    """
    names = work.names()
    if not names or len(names) > 3 or not work.is_affine:
        return None
    ranges: dict[str, tuple[int, int]] = {}
    for outer in source.loops():
        var = outer.var
        inside = outer.span.start_byte < loop.span.start_byte < outer.span.end_byte
        if var not in names or not inside or outer.function != loop.function:
            continue
        bounds = (outer.lower, outer.upper)
        ends = [p.substitute(values) for p in bounds if p is not None]
        if len(ends) != 2 or not all(e.is_constant for e in ends):
            return None
        ranges[var] = (min(e.constant for e in ends), max(e.constant for e in ends))
    if set(ranges) != set(names):
        return None
    corners: list[dict[str, Poly]] = [{}]
    for var, (low, high) in ranges.items():
        corners = [c | {var: Poly.const(v)} for c in corners for v in (low, high)]
    most = max(work.substitute(c).constant for c in corners)
    where = ", ".join(f"`{v}` ≤ {hi}" for v, (_, hi) in sorted(ranges.items()))
    return most, where


def outer_range_reason(
    source: SourceFile,
    loop: Loop,
    work: Poly,
    values: Mapping[str, Poly],
    floor: int,
) -> str:
    """A small-loop reason when the enclosing loops' ranges keep `work` small."""
    bounded = outer_range_work(source, loop, work, values)
    if bounded is None or bounded[0] >= floor:
        return ""
    return (
        f"small loop: at most {bounded[0]} work units ({bounded[1]} in the "
        "loops around it); likely slower in parallel"
    )


FEW_ITERATIONS = 64
"""Fewer known iterations than this divide unevenly between threads."""


def few_iterations_reason(iterations: int | None, units: int, floor: int) -> str:
    """Why a loop of a known few iterations gains too little in parallel, or "".

    With two threads one takes ⌈n/2⌉ of the n iterations: 4 of 7. The loop pays
    when that share plus the region's cost (`floor`) saves a tenth of its work.
    """
    if iterations is None or not 0 < iterations < FEW_ITERATIONS:
        return ""
    parallel = floor + units * ((iterations + 1) // 2) / iterations
    if parallel < 0.9 * units:
        return ""
    return (
        f"few iterations: {iterations}, ≈ {fmt_units(units)} work units in all; the "
        "slower thread takes about half of them, and the region costs the rest"
    )
