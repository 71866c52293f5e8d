"""Delinearized subscript equalities: `i*n + j` split into rows `(i, j)` when proved.

Two references touch the same element when their subscripts are equal; a
linearized subscript is split into the row and the column only when the column
stays within `[0, n)` over the domain, so that rows cannot be told apart by
spilling into a neighbour.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd

from accls.analysis.delinearize import Linear, combine, linear
from accls.analysis.padded_rows import divide_extent, padded_extents
from accls.analysis.polyhedra import Row, build, constrain, is_empty
from accls.frontend import Loop, Poly, Subscript

__all__ = ["equalities"]


Factor = str | int | tuple[str, int] | Poly
"""An extent: a symbol key, a constant, a constant times a symbol (`5*n`), or an
affine form of symbols (`n + 2`, padded_rows)."""


def _divide(poly: Poly, factor: Factor) -> tuple[Poly, Poly]:
    """(quotient, rest): the terms that `factor` divides, divided, and the others."""
    quotient: list[tuple[tuple[str, ...], int]] = []
    rest: list[tuple[tuple[str, ...], int]] = []
    for mono, coeff in poly.terms:
        if isinstance(factor, tuple):
            name, scale = factor
            if name in mono and not coeff % scale:
                pos = mono.index(name)
                quotient.append(((*mono[:pos], *mono[pos + 1 :]), coeff // scale))
            else:
                rest.append((mono, coeff))
        elif isinstance(factor, int):
            if coeff % factor:
                rest.append((mono, coeff))
            else:
                quotient.append((mono, coeff // factor))
        elif factor in mono:
            pos = mono.index(factor)
            quotient.append(((*mono[:pos], *mono[pos + 1 :]), coeff))
        else:
            rest.append((mono, coeff))
    # Distinct terms stay distinct without one factor; sorting restores normal form.
    return Poly(tuple(sorted(quotient))), Poly(tuple(rest))


def _factors(polys: Sequence[Poly]) -> list[Factor]:
    """Candidate extents: symbols in every non-linear term, then a common constant.

    The constant covers a fixed inner extent, as in `(i*m + j)*8 + k`; a symbol
    times the constant covers rows of `5*n`, as in `x*5*n + y` with `y < 5*n`.
    """
    common: set[str] | None = None
    scale = 0
    for poly in polys:
        for mono, coeff in poly.terms:
            if len(mono) > 1:
                names = {k for k in mono if k.startswith("p:")}
                common = names if common is None else common & names
                scale = gcd(scale, coeff)
    out: list[Factor] = [*sorted(common or ())]
    if scale > 1:
        out.extend((name, scale) for name in sorted(common or ()))
        out.append(scale)
    return out


def _in_range(rests: Sequence[Poly], factor: Factor, context: Sequence[Row]) -> bool:
    """True when 0 <= r < factor for both rests (first on side s, then t)."""
    domain = build(context)
    size: Linear
    if isinstance(factor, Poly):
        size = linear(factor)
    elif isinstance(factor, tuple):
        size = ({factor[0]: factor[1]}, 0)
    elif isinstance(factor, int):
        size = ({}, factor)
    else:
        size = ({factor: 1}, 0)
    for rest, side in zip(rests, "st", strict=True):
        lin = linear(rest, side)
        for item in (combine(({}, -1), lin, -1), combine(lin, size, -1)):
            known = all(key in domain.columns for key, _ in item.coeffs)
            # A key the context never mentions is unconstrained: give it a column.
            checked = constrain(domain, item) if known else build((*context, item))
            if not is_empty(checked):
                return False
    return True


def _split(
    left: Poly, right: Poly, context: Sequence[Row]
) -> list[tuple[Poly, Poly]] | None:
    """Pairs of affine subscripts equivalent to `left == right`, or None."""
    if left.is_affine and right.is_affine:
        return [(left, right)]
    for factor in _factors((left, right)):
        high_l, low_l = _divide(left, factor)
        high_r, low_r = _divide(right, factor)
        if not (low_l.is_affine and low_r.is_affine):
            continue
        if not _in_range((low_l, low_r), factor, context):
            continue
        inner = _split(high_l, high_r, context)
        if inner is not None:
            return [*inner, (low_l, low_r)]
    for name, extent in padded_extents((left, right)):
        high_l, low_l = divide_extent(left, name, extent)
        high_r, low_r = divide_extent(right, name, extent)
        if not (low_l.is_affine and low_r.is_affine):
            continue
        if not _in_range((low_l, low_r), extent, context):
            continue
        inner = _split(high_l, high_r, context)
        if inner is not None:
            return [*inner, (low_l, low_r)]
    return None


def _open_column(column: Poly, size: str, loops: Sequence[Loop]) -> str:
    """Which loop of the column part stops at a bound not tied to `size`, in words.

    `for (ii = 0; ii < s->boxes->nAtoms[iBox]; ii++)` with `p[MAXATOMS*iBox + ii]`:
    the split needs `nAtoms[iBox] <= MAXATOMS`, a fact about memory's contents.
    """
    for mono, _ in column.terms:
        if len(mono) != 1 or not mono[0].isdigit():
            continue
        level = int(mono[0])
        if level >= len(loops):
            continue
        loop = loops[level]
        if not loop.upper_text or not loop.var:
            continue
        upper = loop.upper
        if upper is not None and upper.is_affine and "[" not in loop.upper_text:
            continue
        read = "->" in loop.upper_text or "[" in loop.upper_text
        what = "a value read from memory" if read else "a value"
        return (
            f": `{loop.var}` stops at `{loop.upper_text}`, {what} that nothing "
            f"proves to be at most `{size}`"
        )
    return ""


def equalities(
    array: str,
    subs: tuple[Sequence[Subscript], Sequence[Subscript]],
    models: tuple[Sequence[Poly], Sequence[Poly]],
    context: Sequence[Row],
    loops: tuple[Sequence[Loop], Sequence[Loop]] = ((), ()),
) -> tuple[Row, ...] | str:
    """Equalities that hold when both references touch the same element, or why not.

    `context` holds both references' domain rows, on sides s and t; a linearized
    subscript such as `i*n + j` is split into (i, j) only when 0 <= j < n is
    proved over it. `loops` are each reference's loops, to say which bound
    leaves that unproved.
    """
    # `f[i]` (a whole row, as a callee writes it) and `f[i][k]`: the two touch
    # the same memory only if the rows their common subscripts pick are equal.
    size = min(len(subs[0]), len(subs[1]), len(models[0]), len(models[1]))
    if size == 0 and len(subs[0]) != len(subs[1]):
        return f"`{array}` is indexed with {len(subs[0])} and {len(subs[1])} subscripts"
    rows: list[Row] = []
    for pos, (left, right) in enumerate(
        zip(models[0][:size], models[1][:size], strict=True)
    ):
        split = _split(left, right, context)
        if split is None:
            text = subs[0][pos].text if not left.is_affine else subs[1][pos].text
            sizes = [f for f in _factors((left, right)) if isinstance(f, str)]
            if sizes:
                # A row-major index whose column part may leave [0, n): in C it
                # then reaches a neighbouring row, so rows cannot be told apart.
                side = 0 if not left.is_affine else 1
                column = _divide((left, right)[side], sizes[0])[1]
                return (
                    f"subscript `{text}` of `{array}` cannot be split into rows "
                    f"of `{sizes[0][2:]}`: its column part is not proved to stay "
                    f"within [0, {sizes[0][2:]})"
                    + _open_column(column, sizes[0][2:], loops[side])
                )
            return f"subscript `{text}` of `{array}` is not affine"
        for part_l, part_r in split:
            rows.append(combine(linear(part_l, "s"), linear(part_r, "t"), -1))
    return tuple(Row(item.coeffs, item.const, equality=True) for item in rows)
