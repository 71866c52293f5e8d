"""Prove simple inequalities between polynomials under affine facts, with isl."""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.polyhedra import Row, build, is_empty, row
from accls.frontend import Poly

__all__ = ["proves_nonnegative"]


def _row(poly: Poly) -> Row:
    return row({mono[0]: coeff for mono, coeff in poly.terms if mono}, poly.constant)


def proves_nonnegative(expr: Poly, facts: Sequence[Poly]) -> bool:
    """True if `expr >= 0` whenever every fact is `>= 0` (affine parts only)."""
    if expr.is_constant:
        return expr.constant >= 0
    if not expr.is_affine:
        return False
    usable = [fact for fact in facts if fact.is_affine]
    try:
        return is_empty(build([*map(_row, usable), _row(-expr - Poly.const(1))]))
    except Exception:  # an isl failure proves nothing
        return False
