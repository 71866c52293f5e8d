"""A quotient in a loop bound (`i < n / 2`) tied to its dividend: `2*q <= n <= 2*q + 1`.

The front end keeps `n / 2` as one opaque symbol, so `a[i]` and `a[n - 1 - i]`
over `0 <= i < n / 2` (reversing an array in place) seemed to meet: nothing
related the symbol to `n`. C truncates toward zero, so `q = e / d` with a
constant `d >= 1` is the floor `d*q <= e <= d*q + d - 1` only where `e >= 0`;
the rows are added only when the domain proves that, or proves `q >= 1`
(an iteration with `0 <= i < q`), which truncation gives only for `e >= d`.
Otherwise the symbol stays unrelated, which is a superset: sound for a
dependence test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from accls.analysis.polyhedra import Row, build, is_empty, row
from accls.frontend.exprs import division_poly

__all__ = ["quotient_rows"]

_PREFIX = "p:"


@lru_cache(maxsize=1024)
def _parsed(key: str) -> tuple[tuple[tuple[str, int], ...], int, int] | None:
    """(dividend's coefficients by name, its constant, divisor) of `p:(e / d)`.

    Cached: the dependence test asks for the same bound of every reference.
    """
    if not key.startswith(_PREFIX) or "/" not in key:
        return None
    parsed = division_poly(key[len(_PREFIX) :])
    if parsed is None:
        return None
    poly, terms = parsed
    if len(terms) != 1 or poly.names() != {"%0"} or not poly.is_affine:
        return None
    if dict(poly.terms).get(("%0",)) != 1 or poly.constant:
        return None
    top, bottom, op = terms[0]
    if op != "/" or not bottom.is_constant or bottom.constant < 1 or not top.is_affine:
        return None
    lin = tuple((mono[0], c) for mono, c in top.terms if mono)
    return lin, top.constant, bottom.constant


def _quotient(
    key: str, fixed: Callable[[str], bool]
) -> tuple[dict[str, int], int, int] | None:
    """(dividend's coefficients by key, its constant, divisor) of `p:(e / d)`.

    `fixed` says a name of the dividend keeps its value in the nest.
    """
    parsed = _parsed(key)
    if parsed is None or not all(fixed(name) for name, _ in parsed[0]):
        return None
    lin, const, divisor = parsed
    return {f"{_PREFIX}{name}": c for name, c in lin}, const, divisor


def quotient_rows(rows: Sequence[Row], fixed: Callable[[str], bool]) -> tuple[Row, ...]:
    """Rows tying each quotient symbol of `rows` to its dividend, where sound.

    `fixed` says a name keeps its value in the nest (no loop variable, never
    written in it): only such names become parameters (`p:` keys).
    """
    keys = {key for item in rows for key, _ in item.coeffs}
    out: list[Row] = []
    for key in sorted(keys):
        found = _quotient(key, fixed)
        if found is None:
            continue
        lin, const, divisor = found
        # e >= 0 over the domain (the domain with e <= -1 is empty), or q >= 1
        # (truncation gives q >= 1 only for e >= d).
        negative = row({k: -c for k, c in lin.items()}, -const - 1)
        if not is_empty(build((*rows, negative))) and not is_empty(
            build((*rows, row({key: -1})))
        ):
            continue
        # e - d*q >= 0 and d*q + d - 1 - e >= 0.
        low = dict(lin)
        low[key] = low.get(key, 0) - divisor
        high = {k: -c for k, c in lin.items()}
        high[key] = high.get(key, 0) + divisor
        out.append(row(low, const))
        out.append(row(high, divisor - 1 - const))
    return tuple(out)
