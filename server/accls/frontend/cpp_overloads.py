"""The argument counts a call of a C++ method may pass, for telling overloads apart.

`list(int r)` and `list(int r, int i)` are two methods: a call passing two
arguments runs the second. Defaults widen a method's counts (`f(int a, int b = 0)`
takes one or two), `...` takes any.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_types import declared_name, function_declarator
from accls.frontend.exprs import node_text

__all__ = ["ANY_COUNT", "declared_methods", "method_counts", "param_counts"]

ANY_COUNT = range(0, 1 << 16)


def param_counts(decl: Node | None) -> range:
    """The argument counts a call of the function declarator `decl` may pass."""
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    if plist is None or "..." in node_text(plist):
        return ANY_COUNT
    params = [p for p in plist.named_children if p.type != "comment"]
    if len(params) == 1 and node_text(params[0]).strip() == "void":
        params = []
    needed = sum(1 for p in params if p.type != "optional_parameter_declaration")
    return range(needed, len(params) + 1)


def method_counts(method: Node) -> range:
    """The argument counts a call of a method definition may pass."""
    return param_counts(function_declarator(method)[0])


def declared_methods(member: Node) -> list[tuple[str, range]]:
    """The methods a member declaration declares without a body (`T& x(int);`)."""
    out: list[tuple[str, range]] = []
    stack = [member]
    while stack:
        node = stack.pop()
        if node.type == "function_declarator":
            target = declared_name(node.child_by_field_name("declarator"))
            if target is not None:
                out.append((node_text(target), param_counts(node)))
            continue
        stack.extend(node.named_children)
    return out
