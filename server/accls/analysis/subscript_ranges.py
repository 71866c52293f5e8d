"""The least and greatest subscript a reference takes over a loop nest.

`B[i*n + j]` over `i, j < n` reaches `B[0]` to `B[n*n - 1]`: each counter's
coefficient may be a symbol (`n`), whose sign the facts must prove, so that
the counter's first or last value gives the end. Anything else gives None:
a counter in a product with another, a bound or coefficient the nest
changes, a loop whose step or direction is not known, a counter read after
its loop (one step past its range).
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.product_inequalities import proves_nonnegative_products
from accls.frontend import Loop, Poly, Ref

__all__ = ["access_range"]

_ONE = Poly.const(1)


def _coefficient(poly: Poly, var: str, counters: set[str]) -> Poly | None:
    """The factor of `var` in `poly`, when `var` appears only times no counter."""
    out = Poly()
    for mono, coeff in poly.terms:
        if var not in mono:
            continue
        rest = list(mono)
        rest.remove(var)
        if set(rest) & counters:
            return None  # `i*i` or `i*j`: no end value of one counter bounds it
        term = Poly.const(coeff)
        for name in rest:
            term = term * Poly.sym(name)
        out = out + term
    return out


def _counted(inner: Loop) -> bool:
    """A rising loop whose counter only its header changes."""
    if inner.cond_op not in ("<", "<="):
        return False
    if inner.range_for is not None or inner.fortran or inner.volatile_bounds:
        return False
    if inner.step is None and not inner.step_symbol:
        return False  # a step that may go down would leave the range
    if inner.step is not None and inner.step < 1:
        return False
    body = inner.body
    return not any(
        r.name == inner.var
        and r.is_write
        and body.start_byte <= r.span.start_byte < body.end_byte
        for r in inner.refs
    )


def access_range(
    ref: Ref, loop: Loop, facts: Sequence[Poly]
) -> tuple[Poly, Poly] | None:
    """The least and greatest subscript of `ref` over the nest `loop`, or None."""
    if ref.deref and not ref.subscripts:
        return Poly.const(0), Poly.const(0)
    if len(ref.subscripts) != 1 or ref.subscripts[0].poly is None:
        return None
    poly = ref.subscripts[0].poly
    counters = {x.var for x in loop.walk() if x.var}
    moving = {r.name for r in loop.refs if r.is_write and not r.subscripts}
    low, high = poly, poly
    for inner in loop.walk():
        var = inner.var
        if var is None or var not in poly.names() or inner.id not in ref.loops:
            continue  # past its loop a counter holds its last value plus a step
        coeff = _coefficient(poly, var, counters)
        if coeff is None or not _counted(inner) or coeff.names() & moving:
            return None
        if inner.lower is None or inner.upper is None:
            return None
        first = inner.lower
        last = inner.upper - _ONE if inner.cond_op == "<" else inner.upper
        if not proves_nonnegative_products(coeff, facts):
            if not proves_nonnegative_products(-coeff, facts):
                return None  # the sign of the stride is not known
            first, last = last, first
        term = coeff * Poly.sym(var)
        low = low - term + coeff * first
        high = high - term + coeff * last
    # What is left must hold still in the whole nest: no loop variable (a
    # triangular bound), no scalar the nest writes.
    if (low.names() | high.names()) & (moving | counters):
        return None
    return low, high
