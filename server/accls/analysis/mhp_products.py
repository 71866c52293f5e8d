"""Row-major subscripts over a run-time width: `g[y * w + x]`, `g[(y - 1) * w + x]`.

The region model compares affine subscripts; a product of a loop variable and
an unchanging width `w` is not affine, so such pairs stayed undecided. Both
sides written as `w * P + Q` (`P`, `Q` affine, neither naming `w`) reach one
element whenever `P1 = P2` and `Q1 = Q2`: that is enough to call a pair surely
met, never to call it apart (`Q` may leave its row), so these rows only ever
confirm a meeting.
"""

from __future__ import annotations

from dataclasses import replace

from accls.analysis.mhp_env import Environment, Location
from accls.frontend import Poly

__all__ = ["width_split"]


def _parts(poly: Poly, width: str) -> tuple[Poly, Poly] | None:
    """(P, Q) with `poly == width * P + Q`, both free of `width`; None otherwise."""
    outer: list[tuple[tuple[str, ...], int]] = []
    rest: list[tuple[tuple[str, ...], int]] = []
    for mono, coeff in poly.terms:
        count = mono.count(width)
        if count > 1:
            return None
        if count == 1:
            outer.append((tuple(n for n in mono if n != width), coeff))
        else:
            rest.append((mono, coeff))
    if not outer:
        return None
    return _poly(outer), _poly(rest)


def _poly(terms: list[tuple[tuple[str, ...], int]]) -> Poly:
    out = Poly.const(0)
    for mono, coeff in terms:
        term = Poly.const(coeff)
        for name in mono:
            term = term * Poly.sym(name)
        out = out + term
    return out


def _widths(poly: Poly, env: Environment) -> set[str]:
    """The unchanging names that multiply another name in `poly`."""
    return {
        name
        for mono, _ in poly.terms
        if len(mono) > 1
        for name in mono
        if name in env.invariant and name not in dict(env.constants)
    }


def width_split(
    a: Location, b: Location, env: Environment
) -> tuple[Location, Location] | None:
    """Both locations with each `w * P + Q` dimension split in two, when all are.

    Equal split subscripts mean one element; None when some dimension is not
    such a product of one width on both sides.
    """
    if len(a.polys) != len(b.polys) or not a.polys:
        return None
    polys_a: list[Poly | None] = []
    polys_b: list[Poly | None] = []
    split = False
    for pa, pb in zip(a.polys, b.polys, strict=True):
        if pa is None or pb is None:
            return None
        widths = _widths(pa, env) | _widths(pb, env)
        if not widths:
            polys_a.append(pa)
            polys_b.append(pb)
            continue
        if len(widths) != 1:
            return None
        width = widths.pop()
        one, two = _parts(pa, width), _parts(pb, width)
        if one is None or two is None:
            return None
        polys_a += list(one)
        polys_b += list(two)
        split = True
    if not split:
        return None
    return _with_polys(a, polys_a), _with_polys(b, polys_b)


def _with_polys(loc: Location, polys: list[Poly | None]) -> Location:
    return replace(loc, polys=tuple(polys))
