"""Remainders in subscripts: `e % m` as a fresh variable r with `0 <= r <= m - 1`.

C's `%` takes the sign of the dividend, so the bounds hold only where `e >= 0`
is proved over the reference's iteration domain, and `m >= 1` too; a modulus
must not change in the nest. Then `x*5 + (y % 5)` touches row `x` of five
elements only, and different `x` never meet. A constant m also ties r to `e`
(`e = m*q + r`), exactly; a symbol m only bounds r, so two references may seem
to meet where they do not: a superset, sound for a dependence test, and its
dependences are not called exact (`loosened`). The variables are iteration
keys (`%0`, `%1`): each side of a pair gets its own (`s%0`, `t%0`), as two
iterations have two remainders.

A quotient `e / d` (C truncates; with `e >= 0` and `d >= 1` that is the floor)
is such a key too: `e = d*q + r`, `0 <= r <= d - 1` for a constant d (exact),
only `0 <= q <= e` for a symbol. A divisor may hold earlier keys of invariant
names (`x % (n/10 + 1)`); one that moves with the iterations refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from accls.analysis.model import Dependence
from accls.analysis.polyhedra import Row, build, is_empty, row
from accls.frontend import Poly

__all__ = ["is_remainder_key", "loose", "loosened", "remainder_rows"]


def is_remainder_key(name: str) -> bool:
    """True for the key of a remainder variable (`%0`)."""
    return name.startswith("%")


def loose(rows: Sequence[Row]) -> bool:
    """True when some remainder of `rows` is bounded but not tied to its dividend."""
    keys = {k for item in rows for k, _ in item.coeffs if k[:1] == "%" and k[-1] != "q"}
    tied = {
        k[:-1] for item in rows for k, _ in item.coeffs if k[:1] == "%" and k[-1] == "q"
    }
    return bool(keys - tied)


def loosened(
    found: list[Dependence], rows: Sequence[Sequence[Row]], array: str
) -> list[Dependence]:
    """`found`, not exact when a side's remainder is only bounded (`loose`)."""
    if not any(loose(item) for item in rows):
        return found
    why = (
        f"a subscript of `{array}` takes a remainder or a quotient by a symbol, "
        "known only to lie within bounds ([0, m) for a remainder by m)"
    )
    return [replace(d, exact=False, reason=why) if d.exact else d for d in found]


Linear = tuple[dict[str, int], int]
"""An affine form: coefficients by key, and the constant."""


def _coeffs(poly: Poly) -> Linear | None:
    if not poly.is_affine:
        return None
    lin = {mono[0]: coeff for mono, coeff in poly.terms if mono}
    return lin, poly.constant


def _folded(size: Linear, constants: Mapping[str, int]) -> Linear:
    """`size` with the macros of known value (`p:NT` for `#define NT 4`) folded in.

    A divisor named by a constant macro is a constant: its remainder is tied to
    the dividend (exact), not only bounded as a symbol's would be.
    """
    lin, const = size
    rest = {k: c for k, c in lin.items() if not (k[:2] == "p:" and k[2:] in constants)}
    const += sum(c * constants[k[2:]] for k, c in lin.items() if k not in rest)
    return rest, const


def _mask(size: Linear) -> bool:
    """True for a constant `M - 1` with M a power of two (`7`, `B - 1` for B 8)."""
    return not size[0] and size[1] >= 0 and not (size[1] + 1) & size[1]


def _never(domain: Sequence[Row], lin: dict[str, int], const: int) -> bool:
    """True when `lin + const >= 0` holds at every point of `domain`."""
    below = row({k: -c for k, c in lin.items()}, -const - 1)
    return is_empty(build((*domain, below)))


def remainder_rows(
    remainders: Mapping[str, tuple[Poly, Poly, str]],
    domain: Sequence[Row],
    constants: Mapping[str, int],
    used: frozenset[str] = frozenset(),
) -> tuple[Row, ...] | None:
    """The rows bounding each term key by its (dividend, divisor, `%` or `/`).

    None when some dividend is not proved `>= 0` or some divisor not proved
    `>= 1` and invariant over `domain` (the reference's domain rows); a term
    may use earlier ones (`x % (n/10 + 1)`), and a divisor the terms of
    invariant names only. `constants`: macro values, as rows for the keys
    `p:NAME` they or the subscripts (`used`: a row width `W` in
    `x*W + y % 5`) name. A constant divisor also ties the term to its dividend
    (exact); a symbol's only bounds it (see `loose`).
    """
    parsed: list[tuple[str, Linear, Linear, str]] = []
    fixed_keys: set[str] = set()  # terms of invariant names only
    for key, (top, bottom, op) in remainders.items():
        left, size = _coeffs(top), _coeffs(bottom)
        if left is None or size is None:
            return None
        size = _folded(size, constants)
        if op == "&":  # `e & (M - 1)`, M a power of two, is `e % M` where e >= 0
            if not _mask(size):
                return None
            size, op = ({}, size[1] + 1), "%"
        if any(not (n.startswith("p:") or n in fixed_keys) for n in size[0]):
            return None  # the divisor moves with the iterations
        if all(n.startswith("p:") or n in fixed_keys for n in left[0]):
            fixed_keys.add(key)
        parsed.append((key, left, size, op))
    named = {
        name
        for _, left, size, _ in parsed
        for name in (*left[0], *size[0])
        if name.startswith("p:") and name[2:] in constants
    } | {name for name in used if name.startswith("p:") and name[2:] in constants}
    fixed = [row({n: 1}, -constants[n[2:]], equality=True) for n in sorted(named)]
    known = [*domain, *fixed]
    out: list[Row] = []
    for key, left, size, op in parsed:
        if not _never(known, *left) or not _never(known, size[0], size[1] - 1):
            return None
        rows = _quotient(key, left, size) if op == "/" else _remainder(key, left, size)
        out.extend(rows)
        known.extend(rows)  # a later term's operands may use this one
    return (*out, *fixed)


def _remainder(key: str, left: Linear, size: Linear) -> list[Row]:
    """`0 <= r <= m - 1`, and `e = m*q + r` for a constant m."""
    out = [row({key: 1}), row({**size[0], key: -1}, size[1] - 1)]
    if not size[0]:
        # A constant m: e = m*q + r for some integer q makes r exactly e % m.
        lin = {**left[0], f"{key}q": -size[1], key: -1}
        out.append(row(lin, left[1], equality=True))
    return out


def _quotient(key: str, left: Linear, size: Linear) -> list[Row]:
    """`e = d*q + r` with `0 <= r <= d - 1` for a constant d; `0 <= q <= e` else."""
    if size[0]:
        # A symbol d >= 1: only 0 <= q <= e (a superset, loose).
        return [row({key: 1}), row({**left[0], key: -1}, left[1])]
    rest = f"{key}q"  # the remainder ties the quotient to its dividend: exact
    tie = row({**left[0], key: -size[1], rest: -1}, left[1], equality=True)
    return [tie, row({rest: 1}), row({rest: -1}, size[1] - 1)]
