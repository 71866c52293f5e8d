"""The element count of a pointer's allocation: `malloc(E * sizeof(T))` is E."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.expr_nodes import acts
from accls.frontend.exprs import node_text, operands, strip_parens
from accls.frontend.model import Var

__all__ = ["allocation_count"]


def _call(value: Node | None) -> Node | None:
    """The call under casts and parentheses: `(T *)malloc(..)`."""
    while value is not None and value.type in (
        "cast_expression",
        "parenthesized_expression",
    ):
        value = value.child_by_field_name("value") or (
            value.named_children[-1] if value.named_child_count else None
        )
    return value if value is not None and value.type == "call_expression" else None


def _element_size(node: Node, var: Var) -> bool:
    """Whether `node` is `sizeof(T)` for T what `var` points to, or `sizeof *var`."""
    node = strip_parens(node)
    if node.type != "sizeof_expression":
        return False
    kind = node.child_by_field_name("type")
    if kind is not None:
        return "*" not in node_text(kind) and " ".join(
            node_text(kind).split()
        ) == " ".join(var.type.split())
    value = node.child_by_field_name("value")
    text = "".join(node_text(value).split()) if value is not None else ""
    if value is not None and value.type == "parenthesized_expression":
        inner = strip_parens(value)
        # `sizeof(real_t)`: the parser cannot tell a typedef name from a
        # variable, but the declaration names `real_t` as the pointer's type,
        # so in this initializer it is that type.
        if inner.type == "identifier" and node_text(inner) == var.type:
            return True
    return text.strip("()") in (f"*{var.name}", f"{var.name}[0]")


def allocation_count(value: Node | None, var: Var) -> str:
    """E for `var = malloc(E * sizeof(T))` or `calloc(E, sizeof(T))`, else "".

    Only for a pointer to T (one level, no extents): an allocation sized in
    another type's units says nothing about how many T it holds.
    """
    call = _call(value)
    if call is None or var.pointers != 1 or var.dims or var.unknown_shape:
        return ""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None:
        return ""
    items = [a for a in args.named_children if a.type != "comment"]
    count: Node | None = None
    if node_text(fn) == "calloc" and len(items) == 2:
        count = items[0] if _element_size(items[1], var) else None
    elif node_text(fn) == "malloc" and len(items) == 1:
        parts = operands(strip_parens(items[0]))
        if parts is not None and parts[1] == "*":
            if _element_size(parts[2], var):
                count = parts[0]
            elif _element_size(parts[0], var):
                count = parts[2]
    if count is None or acts(count) or count.type == "sizeof_expression":
        return ""
    return " ".join(node_text(strip_parens(count)).split())
