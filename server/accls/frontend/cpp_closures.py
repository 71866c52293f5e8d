"""Lambdas whose body cannot be read in place of a call inside a loop.

A lambda defined before a loop and capturing by reference names the variables
of the enclosing scope, not copies a `parallel for` would make: when the loop
privatizes or reduces such a variable (it is written in the loop or in the
body), the closure still reads and writes the one shared variable. Such a call
is an unknown call, never an inlined body.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.exprs import node_text, strip_parens

__all__ = ["captures_loop_scalars"]

_LOOPS = frozenset(
    {"for_statement", "for_range_loop", "while_statement", "do_statement"}
)
_WRITES = frozenset({"assignment_expression", "update_expression"})


def _by_reference(lam: Node) -> bool:
    """`[&]`, `[&x]` or `[=, &x]`: some name is captured by reference."""
    captures = lam.child_by_field_name("captures")
    if captures is None:
        return False
    return "&" in node_text(captures)


def _outermost_loop(call: Node, lam: Node) -> Node | None:
    """The outermost loop around `call` that does not contain the lambda."""
    found = None
    cur = call.parent
    while cur is not None:
        if cur.type in _LOOPS and not (cur.start_byte <= lam.start_byte < cur.end_byte):
            found = cur
        cur = cur.parent
    return found


def _written(node: Node) -> set[str]:
    """Plain names assigned or updated under `node`."""
    names: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in _WRITES:
            side = cur.child_by_field_name("left") or cur.child_by_field_name(
                "argument"
            )
            if side is not None and strip_parens(side).type == "identifier":
                names.add(node_text(strip_parens(side)))
        stack.extend(cur.named_children)
    return names


def _declared(body: Node) -> set[str]:
    """Names the lambda itself declares (parameters and locals)."""
    names: set[str] = set()
    stack = [body.parent] if body.parent is not None else [body]
    while stack:
        cur = stack.pop()
        if cur.type in ("parameter_declaration", "declaration", "init_declarator"):
            decl = cur.child_by_field_name("declarator")
            while decl is not None and decl.type != "identifier":
                decl = decl.child_by_field_name("declarator")
            if decl is not None:
                names.add(node_text(decl))
        stack.extend(cur.named_children)
    return names


def captures_loop_scalars(call: Node, lam: Node) -> bool:
    """True when `lam`, called at `call`, shares a variable a loop privatizes."""
    body = lam.child_by_field_name("body")
    if body is None or not _by_reference(lam):
        return False
    loop = _outermost_loop(call, lam)
    if loop is None:
        return False
    own = _declared(body)
    risky = (_written(body) | _written(loop)) - own
    stack = [body]
    while stack:
        cur = stack.pop()
        if cur.type == "identifier" and node_text(cur) in risky:
            return True
        stack.extend(cur.named_children)
    return False
