"""The allocator a call names: `malloc(...)`, `(T *)calloc(...)`, through C++ casts."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text
from accls.frontend.library import Effect, library, names_with

__all__ = ["DEVICE_ALLOCATORS", "allocator", "called_name"]


_ALLOCATORS = names_with(Effect.ALLOC)


DEVICE_ALLOCATORS = frozenset(f.name for f in library().values() if f.device)
"""Allocators whose memory lives on the device, not the host."""


_CXX_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast"})


def called_name(value: Node | None) -> str | None:
    """The function `value` calls, through casts and parentheses: `(T *)f(...)`.

    C++: through `static_cast<T *>(..)` too, and `f<T>(..)` calls `f`.
    """
    while value is not None:
        if value.type in ("cast_expression", "parenthesized_expression"):
            value = value.child_by_field_name("value") or (
                value.named_children[0] if value.named_child_count else None
            )
        elif (inner := _cxx_cast_value(value)) is not None:
            value = inner
        else:
            break
    if value is None or value.type != "call_expression":
        return None
    fn = value.child_by_field_name("function")
    if fn is not None and fn.type == "template_function":
        name = fn.child_by_field_name("name")
        return node_text(name) if name is not None else node_text(fn)
    return node_text(fn) if fn is not None else ""


def _cxx_cast_value(value: Node) -> Node | None:
    """The operand of C++'s `static_cast<T>(x)` (and the other casts), else None."""
    if value.type != "call_expression":
        return None
    fn = value.child_by_field_name("function")
    args = value.child_by_field_name("arguments")
    name = fn.child_by_field_name("name") if fn is not None else None
    if (
        fn is None
        or fn.type != "template_function"
        or name is None
        or node_text(name) not in _CXX_CASTS
        or args is None
        or args.named_child_count != 1
    ):
        return None
    return args.named_children[0]


def allocator(value: Node | None) -> str | None:
    """The allocator called by `malloc(...)`, `(T *)calloc(...)` and friends."""
    name = called_name(value)
    return name if name in _ALLOCATORS else None
