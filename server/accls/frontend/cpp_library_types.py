"""The types the standard library's container and string methods return.

`v.size()` is a count and `v.data()` a pointer to the elements; `v.at(i)`,
`front()` and `back()` an element; `begin()`, `end()` a random-access iterator,
read as a pointer to an element. A `std::string`'s `size()`, `length()` and
`empty()` are counts too. Other methods' types are not known here.
"""

from __future__ import annotations

from accls.frontend.cpp_types import (
    BUILTIN,
    STRING_CLASSES,
    UNKNOWN,
    CxxScope,
    CxxType,
    TypeKind,
    classify,
)

__all__ = ["library_method_type"]

_COUNTS = frozenset({"size", "empty", "capacity"})
_STRING_COUNTS = frozenset({"size", "length", "empty"})


def library_method_type(owner: CxxType, name: str, scope: CxxScope) -> CxxType | None:
    """What `obj.name()` returns for a container or a string `obj`; None if neither."""
    if owner.kind is TypeKind.CLASS and owner.name in STRING_CLASSES:
        return BUILTIN if name in _STRING_COUNTS else UNKNOWN
    if owner.kind is not TypeKind.CONTAINER:
        return None
    if name in _COUNTS:
        return BUILTIN
    if name in ("data", "begin", "end", "cbegin", "cend"):
        # A random-access iterator: a pointer to an element, to operators.
        return CxxType(TypeKind.BUILTIN, element=owner.element, pointer=True)
    if name in ("at", "front", "back"):
        return classify(owner.element, scope)
    return UNKNOWN
