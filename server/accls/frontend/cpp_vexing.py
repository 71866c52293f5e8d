"""C++'s most vexing parse: `std::vector<double> x(n);` read as a function `x`.

tree-sitter reads a declaration in a body whose arguments are plain names as
the declaration of a function taking parameters of those types. When every
such "type" is a variable in scope and no type, the declaration defines a
variable built by its constructor from those variables.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["constructor_arguments"]


def constructor_arguments(
    declarator: Node, is_variable: Callable[[str], bool]
) -> tuple[Node, tuple[Node, ...]] | None:
    """The name and arguments of `T x(a, b)` parsed as a function declarator.

    None unless each parameter is a lone name that `is_variable` accepts
    (`Foo f();` and `Foo f(int)` declare functions).
    """
    if declarator.type != "function_declarator":
        return None
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if name is None or name.type != "identifier" or params is None:
        return None
    args: list[Node] = []
    for param in params.named_children:
        kind = param.child_by_field_name("type")
        if (
            param.type != "parameter_declaration"
            or param.named_child_count != 1
            or kind is None
            or kind.type != "type_identifier"
            or not is_variable(node_text(kind))
        ):
            return None
        args.append(kind)
    return (name, tuple(args)) if args else None
