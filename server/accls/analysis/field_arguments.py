"""A field of an element passed by address: `bump(&c[i].v)`, or `bump(c[i].v)`.

`void bump(double *x) { *x += 1; }` (or `double &x`, which the front end
passes as `&c[i].v`) called on the field `v` of the element `c[i]` of an
array or `std::vector` of structs updates that field and nothing else, when
the callee uses its parameter only as `x[0]` (callee_slices). The call is
then the access `c[i].v` of the loop, which the dependence test decides like
`c[i].v += 1` written in the loop: two iterations are apart exactly when the
subscripts prove it, and the field set keeps `c[i].w` apart from it.

Only one field below the element (`c[i].v`, not `c[i].v.w`), of a struct that
is no union, whose type is the callee's scalar (no array, no pointer), and a
callee that reaches offset 0 alone qualify: `x[1]` would be another field or
another element.
"""

from __future__ import annotations

from accls.analysis.callee_slices import element_type
from accls.analysis.pointer_slices import PointerSlice
from accls.frontend import Ref, SourceFile, Var

__all__ = ["field_matches", "field_of"]


def field_matches(ref: Ref, inner: str, render: str) -> bool:
    """Whether `inner` (an argument without `&`) is the field reference `ref`."""
    return bool(ref.field) and inner == f"{render}.{ref.field}"


def field_of(element: Ref, var: Var, sliced: PointerSlice, source: SourceFile) -> bool:
    """Whether the callee's slice of `&a[e].f` is exactly the field `f`."""
    if sliced.low != 0 or sliced.high != 0 or element.deref:
        return False
    if source.types.is_union(var.type):
        return False  # the fields overlap: `c[i].v` is also `c[i].w`
    fields = source.types.fields_of(var.type)
    field = fields.get(element.field) if fields is not None else None
    if field is None or field.dims or field.pointers:
        return False
    return element_type(field.type, source.types) == sliced.element
