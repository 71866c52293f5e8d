"""Statement macros with a block, `FOREACH(k) { c[k] = 0; }`, read as definitions.

tree-sitter reads `EACH(k) { ... }` inside a function as a nested function
definition (type `EACH`, declarator `(k)`), with no error. The block runs in
place, as often as the macro's hidden loop says, but nothing walks it as code:
a real GNU nested function has a function declarator (`void bump(int j)`) and
runs only where it is called, while this one's writes would be lost. Such
blocks are reported as parse errors, so that no fact rests on the text around
them: a loop holding one is refused, a function holding one has no summary.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

__all__ = ["MACRO_BLOCK", "macro_blocks"]

MACRO_BLOCK = (
    "a statement macro's block (`EACH(k) { ... }`), which the parser reads as a "
    "definition: the code it runs is not read"
)

_WRAPPERS = (
    "pointer_declarator",
    "array_declarator",
    "parenthesized_declarator",
    "attributed_declarator",
    "reference_declarator",  # C++: `int &get() { .. }` of a local class
)


def _declares_function(definition: Node) -> bool:
    """Whether the definition's declarator chain holds a function declarator."""
    cur = definition.child_by_field_name("declarator")
    while cur is not None:
        if cur.type == "function_declarator":
            return True
        if cur.type not in _WRAPPERS:
            return False
        inner = cur.child_by_field_name("declarator")
        cur = inner if inner is not None else next(iter(cur.named_children), None)
    return False


def macro_blocks(functions: Iterable[Node]) -> list[Node]:
    """The definitions inside the function bodies that declare no function."""
    found: list[Node] = []
    for fn in functions:
        body = fn.child_by_field_name("body")
        stack = list(body.named_children) if body is not None else []
        while stack:
            node = stack.pop()
            if node.type == "function_definition" and not _declares_function(node):
                found.append(node)
                continue
            stack.extend(node.named_children)
    return sorted(found, key=lambda n: n.start_byte)
