"""`T x(a * b)`: tree-sitter reads a product of two variables as a parameter `a *b`.

`std::vector<double> v(nx * ny);` is, in C++, an object built from the
product, since `nx` names a variable and not a type; the grammar cannot tell
and parses a function declarator whose parameter `nx *ny` points to an `nx`.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["product_factor"]


def product_factor(
    declarator: Node | None, is_variable: Callable[[str], bool]
) -> Node | None:
    """`b` of `T x(a * b)`, parsed as a parameter `a *b`, when `b` is a variable."""
    inner = declarator.child_by_field_name("declarator") if declarator else None
    if declarator is None or declarator.type != "pointer_declarator" or inner is None:
        return None
    named = inner.type == "identifier" and is_variable(node_text(inner))
    return inner if named else None
