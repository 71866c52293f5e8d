"""Questions about one C expression node: does it act, what does it subscript."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text, strip_parens, to_poly
from accls.frontend.macros import MacroTable, expand_calls, expand_objects
from accls.frontend.model import Subscript
from accls.frontend.tsparser import parse_snippet

__all__ = [
    "acts",
    "cpp_index",
    "has_subscript",
    "snippet_expression",
    "stored_into",
    "subscript_of",
]


def acts(node: Node) -> bool:
    """Whether an expression calls, assigns or steps anything."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in (
            "call_expression",
            "assignment_expression",
            "update_expression",
        ):
            return True
        stack.extend(cur.named_children)
    return False


def cpp_index(node: Node) -> Node | None:
    """The index of C++'s `a[i]`, which its grammar wraps in a list (`a[i, j]`)."""
    indices = node.child_by_field_name("indices")
    if indices is None or indices.named_child_count != 1:
        return None
    return indices.named_children[0]


def subscript_of(node: Node, macros: MacroTable) -> Subscript:
    """The subscript `node` is, its macros expanded; indirect if it reads memory."""
    text = " ".join(node_text(node).split())
    indirect = has_subscript(node, macros)
    if indirect:
        return Subscript(text, None, True)
    expanded = expand_calls(expand_objects(text, macros), macros)
    if expanded == text:
        return Subscript(text, to_poly(node), False)
    root = parse_snippet(f"void __accls(void) {{ ({expanded}); }}")
    body = snippet_expression(root)
    poly = to_poly(body) if body is not None and not body.has_error else None
    return Subscript(text, poly, body is None or has_subscript(body, macros))


def snippet_expression(root: Node) -> Node | None:
    """The expression inside `void __accls(void) { (EXPR); }`."""
    fn = root.named_children[0] if root.named_child_count else None
    body = fn.child_by_field_name("body") if fn is not None else None
    stmt = (
        body.named_children[0] if body is not None and body.named_child_count else None
    )
    if (
        stmt is None
        or stmt.type != "expression_statement"
        or not stmt.named_child_count
    ):
        return None
    return stmt.named_children[0]


def has_subscript(node: Node, macros: MacroTable) -> bool:
    """Whether `node` reads memory: a subscript, a dereference or a real call."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in ("subscript_expression", "pointer_expression"):
            return True
        if cur.type == "call_expression":
            fn = cur.child_by_field_name("function")
            if fn is None or node_text(fn) not in macros.functions:
                return True
        stack.extend(cur.children)
    return False


def stored_into(node: Node) -> str:
    """The plain variable `node`'s value is stored in: `p = node`, `T *p = node`."""
    child, parent = node, node.parent
    while parent is not None and parent.type in (
        "parenthesized_expression",
        "cast_expression",
    ):
        child, parent = parent, parent.parent
    if parent is None:
        return ""
    if (
        parent.type == "init_declarator"
        and parent.child_by_field_name("value") == child
    ):
        target = parent.child_by_field_name("declarator")
        while target is not None and target.type == "pointer_declarator":
            target = target.child_by_field_name("declarator")
    elif (
        parent.type == "assignment_expression"
        and parent.child_by_field_name("right") == child
        and node_text(parent.child_by_field_name("operator") or parent) == "="
    ):
        target = parent.child_by_field_name("left")
    else:
        return ""
    target = strip_parens(target) if target is not None else None
    return (
        node_text(target) if target is not None and target.type == "identifier" else ""
    )
