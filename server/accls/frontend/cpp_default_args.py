"""The default arguments of a file's functions: `int f(int x, int id = next_id())`.

A call leaving an argument out evaluates its default in the caller, each time:
a default that calls a function or reads a variable is an effect of every such
call. Keyed by the function's unqualified name, over every declaration of it
(overloads and prototypes alike), so a call meets each default it may evaluate.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text

__all__ = ["default_arguments"]

# Defaults that read no memory and call nothing.
_CONSTANTS = frozenset(
    {
        "number_literal", "string_literal", "char_literal", "true", "false",
        "null", "nullptr", "raw_string_literal", "concatenated_string",
    }
)  # fmt: skip


def default_arguments(root: Node) -> dict[str, tuple[Node, ...]]:
    """Each function name's default arguments that are not literals."""
    found: dict[str, list[Node]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "function_declarator":
            _collect(node, found)
        stack.extend(node.named_children)
    return {name: tuple(values) for name, values in found.items()}


def _collect(declarator: Node, found: dict[str, list[Node]]) -> None:
    target = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if target is None or params is None:
        return
    name = "".join(node_text(target).split()).rsplit("::", 1)[-1]
    for param in params.named_children:
        if param.type not in (
            "optional_parameter_declaration",
            "optional_type_parameter_declaration",
        ):
            continue
        value = param.child_by_field_name("default_value")
        if value is not None and value.type not in _CONSTANTS:
            found.setdefault(name, []).append(value)
