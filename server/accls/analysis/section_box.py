"""The box (start, length per dimension) that covers a loop nest's references."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from accls.analysis.inequalities import proves_nonnegative
from accls.analysis.modulo_sections import dividend, modulo_range
from accls.analysis.quotient_subscripts import quotient_subscript
from accls.analysis.ref_guards import guard_bounds, tighter
from accls.frontend import Loop, Poly, Ref
from accls.frontend.exprs import expression_poly, remainder_poly

__all__ = ["loop_range", "pick_bound", "section_box", "subscript_polys"]


def loop_range(loop: Loop) -> tuple[Poly, Poly] | None:
    """Inclusive (low, high) of the loop variable, as polynomials."""
    if loop.lower is None or loop.upper is None or not loop.step:
        return None
    if loop.step > 0:
        strict = loop.cond_op in ("<", "!=")
        high = loop.upper - Poly.const(1) if strict else loop.upper
        return loop.lower, high
    strict = loop.cond_op in (">", "!=")
    low = loop.upper + Poly.const(1) if strict else loop.upper
    return low, loop.lower


def _sign(poly: Poly) -> int:
    """+1 or -1 if every coefficient has that sign (symbols assumed >= 0), else 0."""
    signs = {coeff > 0 for _, coeff in poly.terms}
    if signs == {True}:
        return 1
    if signs == {False}:
        return -1
    return 0


def _extreme(
    poly: Poly, ranges: list[tuple[str, Poly, Poly]], high: bool
) -> Poly | None:
    """Bound `poly` from below (or above) over the nest's iteration space."""
    for var, low, top in ranges:  # innermost first: their bounds may use outer vars
        if var not in poly.names():
            continue
        with_var = Poly(tuple(t for t in poly.terms if var in t[0]))
        rest = poly - with_var
        if any(mono.count(var) > 1 for mono, _ in with_var.terms):
            return None
        coeff = Poly(
            tuple((tuple(n for n in m if n != var), c) for m, c in with_var.terms)
        )
        sign = _sign(coeff)
        if sign == 0:
            return None
        pick = top if (sign > 0) == high else low
        poly = rest + coeff * pick
    return poly


def pick_bound(a: Poly, b: Poly, high: bool, facts: list[Poly]) -> Poly | None:
    """The larger (or smaller) of two bounds, when the loop bounds decide it."""
    diff = a - b
    if proves_nonnegative(diff, facts):
        return a if high else b
    if proves_nonnegative(-diff, facts):
        return b if high else a
    return None


def subscript_polys(ref: Ref) -> list[Poly | None]:
    """Each subscript as a polynomial (None when indirect); `*p` is `p[0]`."""
    if ref.deref and not ref.subscripts:
        return [Poly.const(0)]
    return [s.poly if not s.indirect else None for s in ref.subscripts]


def section_box(
    refs: list[Ref],
    ranges: list[tuple[str, Poly, Poly]],
    variant: frozenset[str],
    by_loop: dict[int, tuple[str, Poly, Poly]] | None = None,
    guards: Mapping[int, Sequence[Poly]] | None = None,
) -> list[tuple[Poly, Poly]] | None:
    """(start, length) per dimension covering every reference, or None.

    None too when a bound still names something that changes inside the loop (a
    loop variable whose range is unknown, a scalar it writes): such a section
    would not even compile outside the loop. `guards`: by a reference's start
    byte, forms `>= 0` that hold wherever it runs (`ref_guards.guard_facts`):
    `if (j >= 0 && j < m) b[j]` reads `b[0..m-1]`. Where the guarded bounds
    of two references cannot be ordered, the box of the loops alone.
    """
    if guards:
        found = _box(refs, ranges, variant, by_loop, guards)
        if found is not None:
            return found
    return _box(refs, ranges, variant, by_loop, None)


def _box(
    refs: list[Ref],
    ranges: list[tuple[str, Poly, Poly]],
    variant: frozenset[str],
    by_loop: dict[int, tuple[str, Poly, Poly]] | None,
    guards: Mapping[int, Sequence[Poly]] | None,
) -> list[tuple[Poly, Poly]] | None:
    rank = {len(subscript_polys(r)) for r in refs}
    if len(rank) != 1:
        return None
    # Every loop runs at least once wherever the array is touched at all.
    facts = [top - low for _, low, top in ranges]
    dims: list[tuple[Poly, Poly]] = []
    for d in range(rank.pop()):
        low: Poly | None = None
        high: Poly | None = None
        for ref in refs:
            poly = subscript_polys(ref)[d]
            lo: Poly | None
            hi: Poly | None
            own = ranges
            if by_loop is not None:
                own = [by_loop[k] for k in reversed(ref.loops) if k in by_loop]
            spans: tuple[tuple[str, Poly, Poly], ...] = ()
            if poly is None and not ref.subscripts[d].indirect:
                poly, spans = _quotients(ref.subscripts[d].text, own, variant)
            if poly is None:
                found = _modulo(ref, d, own, variant)
                if found is None:
                    return None
                lo, hi = found
            else:
                lo = _extreme(poly, [*spans, *own], high=False)
                hi = _extreme(poly, [*spans, *own], high=True)
                facts_here = guards.get(ref.span.start_byte) if guards else None
                if facts_here:
                    lo, hi = _guarded(poly, (lo, hi), facts_here, own, variant)
            if lo is None or hi is None:
                return None
            low = lo if low is None else pick_bound(low, lo, False, facts)
            high = hi if high is None else pick_bound(high, hi, True, facts)
            if low is None or high is None:
                return None
        if low is None or high is None:
            return None
        if (low.names() | high.names()) & variant:
            return None
        dims.append((low, high - low + Poly.const(1)))
    return dims


def _guarded(
    poly: Poly,
    bounds: tuple[Poly | None, Poly | None],
    guards: Sequence[Poly],
    ranges: list[tuple[str, Poly, Poly]],
    variant: frozenset[str],
) -> tuple[Poly | None, Poly | None]:
    """`bounds` of `poly` tightened by the conditions that guard its reference."""
    facts = [top - low for _, low, top in ranges] + list(guards)
    lows, highs = guard_bounds(poly, list(guards))
    out = list(bounds)
    for side, found in ((0, lows), (1, highs)):
        for bound in found:
            near = _extreme(bound, ranges, high=side == 1)
            if near is None or near.names() & variant:
                continue
            old = out[side]
            if old is not None and old.names() & variant:
                old = None  # a bound the loop changes: no bound at all
            out[side] = tighter(old, near, side == 1, facts, poly.names())
    return out[0], out[1]


def _quotients(
    text: str, ranges: list[tuple[str, Poly, Poly]], variant: frozenset[str]
) -> tuple[Poly | None, tuple[tuple[str, Poly, Poly], ...]]:
    """A subscript with quotients as a polynomial and its quotient terms' ranges."""

    def extremes(poly: Poly) -> tuple[Poly, Poly] | None:
        low = _extreme(poly, ranges, high=False)
        high = _extreme(poly, ranges, high=True)
        return None if low is None or high is None else (low, high)

    known = (n for _, low, top in ranges for n in low.names() | top.names())
    found = quotient_subscript(text, variant, known, extremes)
    return (None, ()) if found is None else found


def _modulo(
    ref: Ref, d: int, ranges: list[tuple[str, Poly, Poly]], variant: frozenset[str]
) -> tuple[Poly, Poly] | None:
    """The range of a subscript `e % m` (`0 .. m-1`), when `e` is never negative.

    `e`'s least value over the nest must be a constant of at least zero, a sum
    of sizes, or follow from the loops' extents (`i + n - 1` with `i >= 0` in a
    loop that runs while `i < n`). A remainder inside a polynomial
    (`x*5 + (y % 5)`) ranges over `0 .. m-1` like an inner loop's variable.
    """
    if d >= len(ref.subscripts) or ref.subscripts[d].indirect:
        return None
    text = ref.subscripts[d].text
    top = dividend(text)
    poly = expression_poly(top) if top is not None else None
    found = modulo_range(text, _nonnegative(poly, ranges, variant), variant)
    return found if found is not None else _with_remainders(text, ranges, variant)


def _nonnegative(
    poly: Poly | None, ranges: list[tuple[str, Poly, Poly]], variant: frozenset[str]
) -> bool:
    """True when `poly` is proved `>= 0` over the nest."""
    lowest = _extreme(poly, ranges, high=False) if poly is not None else None
    facts = [high - low for _, low, high in ranges]
    return (
        lowest is not None
        and not lowest.names() & variant
        and (
            (all(c > 0 for m, c in lowest.terms if m) and lowest.constant >= 0)
            or proves_nonnegative(lowest, facts)
        )
    )


def _with_remainders(
    text: str, ranges: list[tuple[str, Poly, Poly]], variant: frozenset[str]
) -> tuple[Poly, Poly] | None:
    """The range of a polynomial with `e % m` terms, each in `0 .. m-1`, or None."""
    found = remainder_poly(text)
    if found is None:
        return None
    poly, parts = found
    spans: list[tuple[str, Poly, Poly]] = []
    for pos, (top, size) in enumerate(parts):
        if not _nonnegative(top, ranges, variant) or size.names() & variant:
            return None
        if size.is_constant and size.constant <= 0:
            return None
        spans.append((f"%{pos}", Poly.const(0), size - Poly.const(1)))
    low = _extreme(poly, [*spans, *ranges], high=False)
    high = _extreme(poly, [*spans, *ranges], high=True)
    return None if low is None or high is None else (low, high)
