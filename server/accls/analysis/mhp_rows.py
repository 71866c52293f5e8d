"""Rows that run into each other: `m[t][N]` on `double m[T][N]` is `m[t + 1][0]`.

The region model compares subscripts dimension by dimension, which tells rows
apart only while every inner subscript stays within its declared extent. When a
sequential loop between literal bounds takes one past either end of its row,
the two accesses are compared as the row-major elements they reach instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from accls.analysis.extents import declared_extents
from accls.analysis.macro_fold import folded_poly
from accls.analysis.mhp_bounds import Sweep, bound_rows
from accls.analysis.polyhedra import Row, build, is_empty, row
from accls.frontend import Function, SourceFile

__all__ = ["array_lengths", "flat_rows", "leaves_row", "region_extents"]

Linear = Mapping[str, int]


def _value(text: str | None, constants: Mapping[str, int]) -> int | None:
    poly = folded_poly(text, constants) if text is not None else None
    if poly is None or any(mono for mono, _ in poly.terms):
        return None
    return sum(coeff for _, coeff in poly.terms)


def region_extents(
    fn: Function, source: SourceFile, constants: Mapping[str, int]
) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The constant inner extents of the arrays `fn` indexes with two subscripts."""
    out: dict[str, tuple[int, ...]] = {}
    for ref in fn.refs:
        rank = len(ref.subscripts)
        if rank < 2 or ref.name in out or ref.member:
            continue
        dims = declared_extents(ref.name, rank, fn, source)
        values = tuple(_value(text, constants) for text in dims[1:])
        if all(v is not None and v > 0 for v in values):
            out[ref.name] = tuple(v for v in values if v is not None)
    return tuple(out.items())


def array_lengths(
    fn: Function, source: SourceFile, constants: Mapping[str, int]
) -> tuple[tuple[str, int], ...]:
    """The constant extents of the one-dimensional arrays `fn` indexes.

    A parameter's declared extent (`double a[16]`) binds nothing: the caller may
    pass a longer array, so it has none here.
    """
    out: dict[str, int] = {}
    params = {p.name for p in fn.params}
    for ref in fn.refs:
        if len(ref.subscripts) != 1 or ref.name in out or ref.member:
            continue
        if ref.name in params:
            continue
        # An array of more dimensions has no extent for one subscript.
        value = _value(declared_extents(ref.name, 1, fn, source)[0], constants)
        if value is not None and value > 0:
            out[ref.name] = value
    return tuple(out.items())


def _literal(sweep: Sweep) -> bool:
    return all(
        side is not None and all(k == "1" for k, _ in side)
        for side in (sweep.low, sweep.high)
    )


def leaves_row(lin: Linear, extent: int, bounds: Sequence[Sweep], side: int) -> bool:
    """True when the subscript `lin` surely leaves `[0, extent)` in some iteration.

    Only sequential loops between literal bounds count: each of their points runs.
    """
    keys = {k for k in lin if k != "1"}
    literal = {f"{s.var}@{side}" for s in bounds if _literal(s)}
    if not keys or not keys <= literal:
        return False
    ranges = bound_rows(bounds, side, keys)
    coeffs = {k: c for k, c in lin.items() if k != "1"}
    const = lin.get("1", 0)
    below = row({k: -c for k, c in coeffs.items()}, -const - 1)
    past = row(coeffs, const - extent)
    return any(not is_empty(build([*ranges, cross])) for cross in (below, past))


def flat_rows(rows: list[Row], extents: Sequence[int]) -> list[Row]:
    """One equality of the row-major offsets for the per-dimension equalities."""
    strides = [1]
    for extent in reversed(extents):
        strides.append(strides[-1] * extent)
    strides.reverse()
    coeffs: dict[str, int] = {}
    const = 0
    for item, stride in zip(rows, strides, strict=True):
        for key, coeff in item.coeffs:
            coeffs[key] = coeffs.get(key, 0) + coeff * stride
        const += item.const * stride
    return [row(coeffs, const, equality=True)]
