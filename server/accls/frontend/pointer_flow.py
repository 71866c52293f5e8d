"""Where a pointer's value goes in the syntax tree, and the rows of pointer tables.

The node shapes `freshness` follows: a value through casts and `p + k` to what
receives it, `&p` handed to `posix_memalign`, `t[a][b]` around a table's name.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.model import Var

__all__ = [
    "argument_position",
    "call_name_of",
    "deref_base",
    "flows_to",
    "is_null",
    "memalign_target",
    "outer_subscript",
    "row_depth",
    "subscript_base",
]

# Expressions through which a pointer's value flows on, unchanged or shifted.
_FLOW = frozenset(
    {
        "parenthesized_expression",
        "cast_expression",
        "conditional_expression",
        "comma_expression",
    }
)
# `posix_memalign(&p, align, n)` stores a fresh block in `p` through its address.
_MEMALIGN = frozenset({"posix_memalign"})
_NULL = frozenset({"NULL", "0", "nullptr", "__null"})  # `__null`: g++ -E


def is_null(value: Node | None) -> bool:
    """True for `NULL`, `0` and `(void *)0`: a pointer to no object."""
    while value is not None and value.type in (
        "cast_expression",
        "parenthesized_expression",
    ):
        value = value.child_by_field_name("value") or (
            value.named_children[-1] if value.named_child_count else None
        )
    return value is not None and node_text(value) in _NULL


def memalign_target(call: Node) -> Node | None:
    """The `&p` of `posix_memalign(&p, ...)` (through casts), else None."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or node_text(fn) not in _MEMALIGN or args is None:
        return None
    first = args.named_children[0] if args.named_child_count else None
    while first is not None and first.type in (
        "cast_expression",
        "parenthesized_expression",
    ):
        first = first.child_by_field_name("value") or (
            first.named_children[-1] if first.named_child_count else None
        )
    if first is None or first.type != "pointer_expression":
        return None
    operator = first.child_by_field_name("operator")
    if operator is None or node_text(operator) != "&":
        return None
    inner = first.child_by_field_name("argument")
    return strip_parens(inner) if inner is not None else None


def flows_to(node: Node) -> Node | None:
    """The node that receives the value of `node`, through casts and `p + k`."""
    child, parent = node, node.parent
    while parent is not None:
        kind = parent.type
        operator = parent.child_by_field_name("operator")
        arithmetic = (
            kind == "binary_expression"
            and operator is not None
            and node_text(operator) in ("+", "-")
        )
        address = (
            kind == "pointer_expression"
            and operator is not None
            and node_text(operator) == "&"
            and child.type == "subscript_expression"
        )
        if kind in _FLOW or arithmetic or address:
            child, parent = parent, parent.parent
            continue
        if kind == "init_declarator" and parent.child_by_field_name("value") == child:
            return parent
        if kind == "assignment_expression":
            return parent if parent.child_by_field_name("right") == child else None
        if kind in ("return_statement", "initializer_list", "argument_list"):
            return parent
        if kind == "pointer_expression" and node_text(operator or parent) == "&":
            return parent  # `&p`: the pointer itself may be changed elsewhere
        return None
    return None


def deref_base(target: Node) -> str:
    """The name `*p`, `*(p + k)` or `*(T **)p` stores through ("" for other targets)."""
    operator = target.child_by_field_name("operator")
    if target.type != "pointer_expression" or operator is None:
        return ""
    if node_text(operator) != "*":
        return ""
    node = target.child_by_field_name("argument")
    while node is not None and node.type != "identifier":
        if node.type == "binary_expression":
            node = node.child_by_field_name("left")
        elif node.type in _FLOW:
            node = node.child_by_field_name("value") or (
                node.named_children[-1] if node.named_child_count else None
            )
        else:
            return ""
    return node_text(node) if node is not None else ""


def call_name_of(args: Node) -> str:
    """The name of the call whose argument list is `args`."""
    call = args.parent
    fn = call.child_by_field_name("function") if call is not None else None
    return node_text(fn) if fn is not None else ""


def outer_subscript(node: Node) -> tuple[Node, int]:
    """The outermost `t[a][b]` around the identifier `node`, and its depth."""
    depth = 0
    while node.parent is not None:
        parent = node.parent
        if parent.type == "parenthesized_expression":
            node = parent
        elif (
            parent.type == "subscript_expression"
            and parent.child_by_field_name("argument") == node
        ):
            node, depth = parent, depth + 1
        else:
            break
    return node, depth


def subscript_base(node: Node) -> tuple[str, int]:
    """The identifier at the base of `t[a][b]` and the number of subscripts."""
    depth = 0
    while node.type == "subscript_expression":
        inner = node.child_by_field_name("argument")
        if inner is None:
            return "", 0
        node, depth = strip_parens(inner), depth + 1
    return (node_text(node) if node.type == "identifier" else ""), depth


def row_depth(var: Var) -> int | None:
    """How many subscripts select a row of a table that holds one pointer level."""
    loads = [k for k, level in enumerate(var.shape) if level == "*" and k > 0]
    return loads[0] if len(loads) == 1 else None


def argument_position(args: Node, inner: Node) -> int:
    """The position in the argument list `args` of the argument holding `inner`."""
    at = 0
    for arg in args.named_children:
        if arg.type == "comment":
            continue
        if arg.start_byte <= inner.start_byte and inner.end_byte <= arg.end_byte:
            return at
        at += 1
    return -1
