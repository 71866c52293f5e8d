"""Array sections a data clause may name: contiguous storage, rows widened whole."""

from __future__ import annotations

from accls.frontend import Poly, Var
from accls.frontend.exprs import expression_poly

__all__ = ["contiguous"]


def contiguous(
    box: list[tuple[Poly, Poly]] | None, var: Var | None, path: bool = False
) -> list[tuple[Poly, Poly]] | None:
    """The box with every dimension inside a partial one widened to its extent.

    A data clause must name contiguous storage: `a[1:n-2][1:m-2]` of an array
    `a[n][m]`, or of a pointer to rows `double (*a)[M]`, does not compile (or
    maps the rows' hull, holes and all, and copies garbage back into the holes).
    A pointer level (`double **a`) ends the run: its rows are separate objects.
    None when a partial dimension has rows whose extent cannot be named.
    """
    if box is None or var is None:
        return box
    if path:  # `s.v`, `p->v`: `var` declares the path's root, not the member
        if len(var.dims) != len(box):
            return box
        extents: list[str | None] | None = list(var.dims)
    else:
        extents = _level_extents(var)
    if extents is None or len(extents) > len(box):
        return box
    # Levels past the declarator's come from a typedef (`row_t *a` with `typedef
    # double row_t[64]`): a section names whole elements of the typedef there
    # (`a[1:n - 2]`), which is contiguous whatever the typedef's extent.
    declared = len(extents)
    extents = extents + [None] * (len(box) - len(extents))
    out = list(box)
    for d in range(len(box) - 1):
        length = box[d][1]
        if length.is_constant and length.constant == 1:
            continue
        for inner in range(d + 1, len(box)):
            if inner >= declared and not path:
                out = out[:inner]
                break
            if extents[inner] == "*":
                break  # rows reached through pointers: each is moved on its own
            extent = extents[inner]
            poly = expression_poly(extent) if extent is not None else None
            if poly is None:
                return None  # an inner extent we cannot name: no section
            out[inner] = (Poly.const(0), poly)
        break
    return out if out != box else box


def _level_extents(var: Var) -> list[str | None] | None:
    """Per subscript level of the declarator its extent, "*" for a pointer level."""
    shape = var.shape
    if set(shape) - {"[", "*"} or shape.count("[") != len(var.dims):
        return None
    dims = iter(var.dims)
    return [next(dims) if level == "[" else "*" for level in shape]
