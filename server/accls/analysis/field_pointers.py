"""A pointer field of a local struct that behaves as a pointer variable of its own.

`v.x = buf; v.y = buf + n;` carve one block through two fields of a local
`struct { double *x, *y; } v`. Such a field is one more link of a chain of
pointers set once (`buffer_offsets.root_offset`) when nothing else can change
it: the struct is a local (or a parameter passed by value) of this function,
neither it nor the field has its address taken (`&v`, `&v.x`), it is never
assigned whole (`v = w`), and it is no union nor holds one (another member
would share the field's storage).
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.access_paths import member_var
from accls.analysis.field_inits import initialized_whole
from accls.frontend import Function, SourceFile, Var

__all__ = ["field_pointer"]

_FIELD = re.compile(r"([A-Za-z_]\w*)\.([A-Za-z_]\w*)")


def field_pointer(name: str, fn: Function, source: SourceFile) -> Var | None:
    """The field `s.f` as a pointer variable named `s.f`, or None."""
    found = _FIELD.fullmatch(name)
    if found is None:
        return None
    base = fn.lookup(found.group(1))
    if base is None or base.scope not in ("local", "param") or base.static:
        return None
    if base.pointers or base.dims or base.address_taken or base.volatile:
        return None
    if source.types.is_union(base.type):
        return None
    field = member_var(name, fn, source.globals, source.types)
    if field is None or field.pointers != 1 or field.dims or field.volatile:
        return None
    whole = base.name
    for ref in fn.refs:
        if ref.name != whole and not ref.name.startswith(f"{whole}."):
            continue
        if ref.escapes or (
            ref.name == whole
            and ref.is_write
            and not initialized_whole(whole, ref.span.start_byte, fn, source)
        ):
            return None  # its address leaves, or the struct is set whole
    return replace(field, name=name, scope=base.scope, address_taken=False)
