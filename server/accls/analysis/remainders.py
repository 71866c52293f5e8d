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
        f"a subscript of `{array}` takes a remainder by a symbol, "
        "known only to lie in [0, m)"
    )
    return [replace(d, exact=False, reason=why) if d.exact else d for d in found]


def _coeffs(poly: Poly) -> tuple[dict[str, int], int] | None:
    if not poly.is_affine:
        return None
    lin = {mono[0]: coeff for mono, coeff in poly.terms if mono}
    return lin, poly.constant


def _never(domain: Sequence[Row], lin: dict[str, int], const: int) -> bool:
    """True when `lin + const >= 0` holds at every point of `domain`."""
    below = row({k: -c for k, c in lin.items()}, -const - 1)
    return is_empty(build((*domain, below)))


def remainder_rows(
    remainders: Mapping[str, tuple[Poly, Poly]],
    domain: Sequence[Row],
    constants: Mapping[str, int],
    used: frozenset[str] = frozenset(),
) -> tuple[Row, ...] | None:
    """The rows bounding each remainder key by its (dividend, modulus), over keys.

    None when some dividend is not proved `>= 0` or some modulus not proved
    `>= 1` and invariant over `domain` (the reference's domain rows).
    `constants`: macro values, as rows for the keys `p:NAME` they or the
    subscripts (`used`: a row width `W` in `x*W + y % 5`) name. A
    constant modulus also ties r to its dividend (exact); a symbol's only
    bounds it (see `loose`).
    """
    parsed: list[
        tuple[str, tuple[dict[str, int], int], tuple[dict[str, int], int]]
    ] = []
    for key, (top, bottom) in remainders.items():
        left, size = _coeffs(top), _coeffs(bottom)
        if left is None or size is None:
            return None
        if any(not name.startswith("p:") for name in size[0]):
            return None  # the modulus moves with the iterations
        parsed.append((key, left, size))
    named = {
        name
        for _, left, size in parsed
        for name in (*left[0], *size[0])
        if name.startswith("p:") and name[2:] in constants
    } | {name for name in used if name.startswith("p:") and name[2:] in constants}
    fixed = [row({n: 1}, -constants[n[2:]], equality=True) for n in sorted(named)]
    known = (*domain, *fixed)
    out: list[Row] = []
    for key, left, size in parsed:
        if not _never(known, *left) or not _never(known, size[0], size[1] - 1):
            return None
        out.append(row({key: 1}))
        out.append(row({**size[0], key: -1}, size[1] - 1))
        if not size[0]:
            # A constant m: e = m*q + r for some integer q makes r exactly e % m.
            lin = {**left[0], f"{key}q": -size[1], key: -1}
            out.append(row(lin, left[1], equality=True))
    return (*out, *fixed)
