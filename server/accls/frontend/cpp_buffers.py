"""C++ containers built in a declaration own a buffer no other name reaches."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["buffer_of", "constructs_buffer"]


def constructs_buffer(value: Node | None) -> bool:
    """Constructor arguments, `v(n)` or `v(n, 0.0)`: a new buffer, not a moved one.

    `std::vector<double> w(std::move(v))` takes `v`'s buffer; any other
    constructor of a standard container allocates its own.
    """
    return (
        value is not None
        and value.type == "argument_list"
        and "move" not in node_text(value)
    )


def buffer_of(call: Node, owners: set[str]) -> str | None:
    """`v` for `v.data()` of a local in `owners` (containers owning a buffer).

    The pointer it returns is into `v`'s own buffer, as `&v[0]` is. Only an
    object (`.`) among `owners` counts: a raw pointer has no `.data()`, and a
    class of the program's may return anything from a method of that name.
    """
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or fn.type != "field_expression" or args is None:
        return None
    obj, field = fn.child_by_field_name("argument"), fn.child_by_field_name("field")
    dot = any(c.type == "." for c in fn.children if not c.is_named)
    if obj is None or field is None or args.named_child_count or not dot:
        return None
    name = node_text(obj)
    return name if node_text(field) == "data" and name in owners else None
