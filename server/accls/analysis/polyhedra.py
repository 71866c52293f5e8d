"""Integer polyhedra over named variables, built and queried with isl."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import islpy as isl
else:

    class _LazyIsl:
        """Imports islpy on first use: most runs need few exact tests, or none."""

        def __getattr__(self, name: str) -> Any:
            import islpy

            globals()["isl"] = islpy
            return getattr(islpy, name)

    isl = _LazyIsl()

__all__ = [
    "Polyhedron",
    "Row",
    "bounds",
    "build",
    "constrain",
    "forced",
    "is_empty",
    "restrict",
    "row",
]


@dataclass(frozen=True, slots=True)
class Row:
    """One affine constraint: `sum(coeff * var) + const` is `== 0` or `>= 0`."""

    coeffs: tuple[tuple[str, int], ...]  # nonzero coefficients by variable key
    const: int = 0
    equality: bool = False


def row(lin: Mapping[str, int], const: int = 0, *, equality: bool = False) -> Row:
    """A Row from a coefficient mapping, dropping zero coefficients."""
    return Row(tuple((key, c) for key, c in lin.items() if c), const, equality)


@dataclass(frozen=True, slots=True)
class Polyhedron:
    """An isl basic set whose dimensions are the variable keys in `columns`."""

    bset: isl.BasicSet
    columns: tuple[str, ...]


@lru_cache(maxsize=4096)
def _val(value: int) -> isl.Val:
    # Passing plain ints makes islpy convert each one; isl values are immutable.
    return isl.Val.int_from_si(isl.DEFAULT_CONTEXT, value)


def _matrix(rows: Sequence[Row], index: Mapping[str, int]) -> isl.Mat:
    const = len(index)
    # Mat.alloc leaves entries uninitialised; added zero rows are cleared.
    mat = isl.Mat.alloc(isl.DEFAULT_CONTEXT, 0, const + 1).add_zero_rows(len(rows))
    for pos, item in enumerate(rows):
        for key, coeff in item.coeffs:
            mat = mat.set_element_val(pos, index[key], _val(coeff))
        if item.const:
            mat = mat.set_element_val(pos, const, _val(item.const))
    return mat


def build(rows: Iterable[Row], front: Sequence[str] = ()) -> Polyhedron:
    """The integer points satisfying every row; `front` keys come first, in order."""
    rows = tuple(rows)
    rest = {key for item in rows for key, _ in item.coeffs}.difference(front)
    columns = (*front, *sorted(rest))
    index = {key: pos for pos, key in enumerate(columns)}
    bset = isl.BasicSet.from_constraint_matrices(
        isl.Space.set_alloc(isl.DEFAULT_CONTEXT, 0, len(columns)),
        _matrix([item for item in rows if item.equality], index),
        _matrix([item for item in rows if not item.equality], index),
        isl.dim_type.set,
        isl.dim_type.div,
        isl.dim_type.param,
        isl.dim_type.cst,
    )
    return Polyhedron(bset, columns)


def constrain(poly: Polyhedron, item: Row) -> Polyhedron:
    """The points of `poly` that also satisfy `item`, whose keys must be columns."""
    space = poly.bset.get_space()
    if item.equality:
        con = isl.Constraint.alloc_equality(space)
    else:
        con = isl.Constraint.alloc_inequality(space)
    for key, coeff in item.coeffs:
        con = con.set_coefficient_val(
            isl.dim_type.set, poly.columns.index(key), _val(coeff)
        )
    con = con.set_constant_val(_val(item.const))
    return Polyhedron(poly.bset.add_constraint(con), poly.columns)


def is_empty(poly: Polyhedron) -> bool:
    """True when no integer point satisfies the constraints."""
    return poly.bset.is_empty()


def restrict(
    poly: Polyhedron, pos: int, low: int | None, high: int | None
) -> Polyhedron:
    """The points whose dimension `pos` lies in [low, high] (None: unbounded)."""
    bset = poly.bset
    if low is not None and low == high:
        bset = bset.fix_val(isl.dim_type.set, pos, _val(low))
    else:
        if low is not None:
            bset = bset.lower_bound_val(isl.dim_type.set, pos, _val(low))
        if high is not None:
            bset = bset.upper_bound_val(isl.dim_type.set, pos, _val(high))
    return Polyhedron(bset, poly.columns)


def _as_int(val: isl.Val) -> int | None:
    return int(val.to_python()) if val.is_int() else None


def bounds(poly: Polyhedron, pos: int) -> tuple[int | None, int | None]:
    """The least and greatest value of dimension `pos`; None when unbounded."""
    whole = poly.bset.to_set()
    return _as_int(whole.dim_min_val(pos)), _as_int(whole.dim_max_val(pos))


def forced(rows: Sequence[Row], extra: Row, keep: Sequence[str]) -> bool:
    """True when `extra` holds at some point of `rows` for every admissible `keep`.

    Admissible values of the `keep` keys are those for which `rows` has a point.
    """
    keys = sorted({key for item in (*rows, extra) for key, _ in item.coeffs})
    front = [key for key in keys if key in keep]
    rest = [key for key in keys if key not in keep]
    order = (*front, *rest)

    def shadow(poly: Polyhedron) -> isl.Set:
        bset = poly.bset.project_out(isl.dim_type.set, len(front), len(rest))
        return bset.to_set()

    whole, hit = build(rows, order), build((*rows, extra), order)
    return bool(shadow(whole).is_subset(shadow(hit)))
