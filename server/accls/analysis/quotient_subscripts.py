"""A subscript with quotients (`a[i + n / 2]`, `a[i / 2]`) as a polynomial over them.

A loop bound `i < n / 2` is read as one invariant symbol `(n / 2)` (see
`frontend.loops`); a subscript `i + n / 2` is no polynomial to the front end,
so the section that covers it could not be written and the offload was
refused. Each quotient `e / c` by a positive literal is read here:

- when the loop never changes `e`, as the same kind of symbol: its C text,
  which has one value wherever the clause is evaluated, spelled like the loop
  bound's when the two are the same text (`y[(n / 2):(n / 2)]`);
- when `e` moves with the loop (`u[i / 2]`, a coarse grid read from a fine
  one), as a term ranging over the quotients of `e`'s range: C's division
  truncates, so `e / c` never decreases as `e` grows, and over `e` in
  `[lo, hi]` it takes the values `lo / c .. hi / c`. The upper end is written
  `(hi + c) / c - 1`, which is `hi / c` for `hi >= 0` and leaves the section
  empty when the loop runs no iteration (`hi = -1`: `u[0:(n + 1) / 2]`, 0 for
  `n = 0`). `lo` must be a constant of at least 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from accls.frontend import Poly
from accls.frontend.exprs import division_poly

__all__ = ["QuotientSubscript", "quotient_subscript"]

Span = tuple[str, Poly, Poly]
"""A term's name and its inclusive (low, high) range."""

QuotientSubscript = tuple[Poly, tuple[Span, ...]]
"""The subscript's polynomial, and the ranges of its terms that move with the loop."""


def _squeezed(text: str) -> str:
    return "".join(text.split()).strip("()")


def _atom(top: Poly, divisor: int) -> str:
    dividend = top.render() if len(top.terms) < 2 else f"({top.render()})"
    return f"({dividend} / {divisor})"


def _c_quotient(value: int, divisor: int) -> int:
    """C's `value / divisor`: truncated toward zero."""
    return value // divisor if value >= 0 else -((-value) // divisor)


def quotient_subscript(
    text: str,
    variant: frozenset[str],
    known: Iterable[str] = (),
    extremes: Callable[[Poly], tuple[Poly, Poly] | None] | None = None,
) -> QuotientSubscript | None:
    """`text` as a polynomial over its quotients `e / c` (c a positive literal).

    `variant`: names that change inside the loop. `known`: symbols already in
    use (the loop bounds'), reused when a quotient is the same text.
    `extremes`: the least and greatest value of a polynomial over the nest
    (None: unknown), for a quotient of what moves with the loop. None when
    some quotient does not qualify.
    """
    found = division_poly(text)
    if found is None:
        return None
    poly, terms = found
    spelled = {_squeezed(name): name for name in known if "/" in name}
    values: dict[str, Poly] = {}
    spans: list[Span] = []
    for pos, (top, bottom, sign) in enumerate(terms):
        if sign != "/" or not bottom.is_constant or bottom.constant <= 0:
            return None
        if any(n.startswith("%") for n in top.names()):
            return None  # nested in another term
        divisor = bottom.constant
        if not top.names() & variant:
            atom = _atom(top, divisor)
            values[f"%{pos}"] = Poly.sym(spelled.get(_squeezed(atom), atom))
            continue
        bounds = extremes(top) if extremes is not None else None
        if bounds is None:
            return None
        low, high = bounds
        if not low.is_constant or low.constant < 0 or high.names() & variant:
            return None
        end = high + Poly.const(divisor)
        top_value = (
            Poly.const(_c_quotient(end.constant, divisor))
            if end.is_constant
            else Poly.sym(_atom(end, divisor))
        )
        low_value = Poly.const(low.constant // divisor)
        spans.append((f"%{pos}", low_value, top_value - Poly.const(1)))
    return poly.substitute(values), tuple(spans)
