"""Members of derived-type array elements: `a(x)%c` as an access of `a(x)`."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.fortran_exprs import name_of

__all__ = ["final_args", "member_element"]


def member_element(node: Node) -> tuple[str, Node, list[Node]] | None:
    """For `a(x)%c` or `a(x)%b%v(k)`: `a`, its `(x)`, and the members' `(k)` lists.

    None when the member's base is not an indexed name (`t%v`, `f()%v`).
    """
    base = node
    inner: list[Node] = []
    while base.named_children:
        first = base.named_children[0]
        if base.type == "derived_type_member_expression":
            base = first
        elif base.type == "call_expression" and (
            first.type == "derived_type_member_expression"
        ):
            inner.extend(c for c in base.named_children if c.type == "argument_list")
            base = first
        else:
            break
    if base is node or base.type != "call_expression" or not base.named_children:
        return None
    callee = base.named_children[0]
    args = next((c for c in base.named_children if c.type == "argument_list"), None)
    if callee.type != "identifier" or args is None:
        return None
    return name_of(callee), args, inner


def final_args(node: Node) -> Node | None:
    """The `(k)` of `a(x)%p(k)`: the subscripts of the last member, if any."""
    first = node.named_children[0] if node.named_children else None
    if node.type != "call_expression" or first is None:
        return None
    if first.type != "derived_type_member_expression":
        return None
    return next((c for c in node.named_children if c.type == "argument_list"), None)
