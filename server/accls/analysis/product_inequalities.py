"""Prove `expr >= 0` when products of symbols appear (`n*n`), each as one unknown.

Carved buffers are sized `n*n` (`B = A + n*n`): the ranges' ends are
polynomials, not affine. Each product of symbols becomes one fresh unknown;
any values of the symbols give values of the products satisfying the
rewritten facts, so a proof over the unknowns is a proof over the symbols
(sound, not complete). What is known of a product is added: a square is
never negative, nor a product of symbols each proved non-negative.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.inequalities import proves_nonnegative
from accls.frontend import Monomial, Poly

__all__ = ["proves_nonnegative_products"]


def _flattened(poly: Poly) -> Poly:
    """`poly` with each product of symbols as one symbol named by the product."""
    out = Poly.const(poly.constant)
    for mono, coeff in poly.terms:
        if mono:
            out = out + Poly.sym("*".join(mono)).scale(coeff)
    return out


def _nonnegative_product(mono: Monomial, facts: Sequence[Poly]) -> bool:
    """Whether a product of symbols is never negative under the affine facts."""
    odd = [name for name in set(mono) if mono.count(name) % 2]
    return all(proves_nonnegative(Poly.sym(name), facts) for name in odd)


def proves_nonnegative_products(expr: Poly, facts: Sequence[Poly]) -> bool:
    """True if `expr >= 0` whenever every fact is `>= 0`, products included."""
    polys = (expr, *facts)
    products = {mono for p in polys for mono, _ in p.terms if len(mono) > 1}
    if not products:
        return proves_nonnegative(expr, facts)
    affine = [fact for fact in facts if fact.is_affine]
    known = [
        Poly.sym("*".join(mono))
        for mono in sorted(products)
        if _nonnegative_product(mono, affine)
    ]
    return proves_nonnegative(_flattened(expr), [*map(_flattened, facts), *known])
