"""Calls through function-pointer variables, whatever functions share their names.

`void run(void (*scale)(double *, int))` calling `scale(x, i)` calls what the
parameter holds, not the file's function `scale()`. Such calls are renamed to
`(*scale)`, the spelling of an explicit dereference, so that nothing reads them
as a call of the function of that name: they stay calls through a pointer.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from accls.frontend.exprs import node_text
from accls.frontend.model import Call

__all__ = ["pointer_names", "through_pointers", "unparsed_names"]

_WRAPPERS = frozenset(
    {
        "parenthesized_declarator",
        "pointer_declarator",
        "array_declarator",
        "reference_declarator",  # C++: `double (&f)(double) = g;`
    }
)


def _declared_name(node: Node | None) -> str | None:
    """The identifier a (pointer, parenthesized, array) declarator declares."""
    while node is not None and node.type in _WRAPPERS:
        inner = node.child_by_field_name("declarator")
        node = inner if inner is not None else next(iter(node.named_children), None)
    if node is not None and node.type == "identifier":
        return node_text(node)
    return None


def _in_parameter(node: Node) -> bool:
    """Whether a declarator is a parameter's (a function type there is a pointer)."""
    parent = node.parent
    while parent is not None and parent.type in _WRAPPERS:
        parent = parent.parent
    return parent is not None and parent.type == "parameter_declaration"


def pointer_names(roots: Iterable[Node | None]) -> frozenset[str]:
    """The names of the function pointers the declarations under `roots` declare.

    `void (*f)(int)`, `void (*table[2])(int)` and a parameter `void f(int)`.
    A block-scope `double g(double);` declares the function `g` and is left out,
    and so are the parameters of the prototypes and pointer types found there.
    """
    found: set[str] = set()
    stack = [r for r in roots if r is not None]
    push = stack.append
    while stack:
        node = stack.pop()
        if node.type == "function_declarator":
            inner = node.child_by_field_name("declarator")
            pointer = inner is not None and inner.type in _WRAPPERS
            if pointer or _in_parameter(node):
                name = _declared_name(inner)
                if name is not None:
                    found.add(name)
        for child in node.children:
            # A token (no children) is no declarator: most nodes are tokens.
            if child.child_count and child.type != "parameter_list":
                push(child)
    return frozenset(found)


def unparsed_names(root: Node | None) -> frozenset[str]:
    """The identifiers inside text the parser could not read, under `root`.

    `__typeof__(&g) f = g;` is no declaration tree-sitter reads: the name `f`
    lands in an error node, and a call `f(x)` must not be taken for a call of
    the file's function `f`, which that unread declaration may hide.
    """
    found: set[str] = set()
    stack = [root] if root is not None and root.has_error else []
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            inside = [node]
            while inside:
                part = inside.pop()
                if part.type == "identifier":
                    found.add(node_text(part))
                inside.extend(part.children)
            continue
        stack.extend(c for c in node.children if c.has_error)
    return frozenset(found)


def through_pointers(
    calls: list[tuple[Call, tuple[int, ...]]], names: frozenset[str]
) -> None:
    """Rename, in place, the calls of `names` to `(*name)`: calls through pointers."""
    if not names:
        return
    for at, (call, loops) in enumerate(calls):
        if call.name in names:
            renamed = Call(f"(*{call.name})", call.span, call.args)
            calls[at] = (renamed, loops)
