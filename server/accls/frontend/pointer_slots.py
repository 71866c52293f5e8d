"""Functions that take a pointer's address only to free it or fill it afresh.

LULESH's `template <typename T> void Release(T **p) { if (*p != NULL) { free(*p);
*p = NULL; } }` is called as `Release(&a)`: the address of `a` is taken, but the
callee only frees the block and nulls the pointer, so `a` is still the fresh
block it was (or null), never a copy of another pointer. A parameter that is
used only as `*p`, and each `*p` only freed, compared with null, or set to null
or to a fresh block, is such a slot; a call's `&a` there is no escape.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from accls.frontend.allocator_calls import allocator, called_name
from accls.frontend.exprs import node_text

__all__ = ["Slot", "pointer_slots", "slot_fills"]

Slot = tuple[str, int, bool]
"""A function's name, the parameter's position, and whether it stores a block."""

_FREES = frozenset({"free", "std::free", "operator delete"})
_NULL = frozenset({"NULL", "0", "nullptr", "__null", "((void*)0)"})


def _declarator(node: Node) -> Node | None:
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    return decl


def _levels(declarator: Node | None) -> tuple[str | None, int]:
    """A parameter's name and how many `*` its declarator has."""
    count = 0
    while declarator is not None and declarator.type in (
        "pointer_declarator",
        "parenthesized_declarator",
    ):
        count += declarator.type == "pointer_declarator"
        inner = declarator.child_by_field_name("declarator")
        if inner is None and declarator.named_child_count:
            inner = declarator.named_children[-1]
        declarator = inner
    if declarator is None or declarator.type != "identifier":
        return None, 0
    return node_text(declarator), count


def _is_null(node: Node | None) -> bool:
    return node is not None and "".join(node_text(node).split()) in _NULL


def _deref_use(deref: Node, wrappers: frozenset[str]) -> bool | None:
    """How `*p` is used: None if not allowed; True if it stores a fresh block."""
    parent = deref.parent
    while parent is not None and parent.type == "parenthesized_expression":
        deref, parent = parent, parent.parent
    if parent is None:
        return None
    kind = parent.type
    if kind == "assignment_expression" and parent.child_by_field_name("left") == deref:
        value = parent.child_by_field_name("right")
        if node_text(parent.child_by_field_name("operator") or parent) != "=":
            return None
        if _is_null(value):
            return False
        fresh = allocator(value) is not None or called_name(value) in wrappers
        return True if fresh else None
    if kind == "argument_list":
        call = parent.parent
        name = called_name(call) if call is not None else None
        return False if name in _FREES and parent.named_child_count == 1 else None
    if kind == "delete_expression":
        return False
    if kind == "binary_expression":
        op = parent.child_by_field_name("operator")
        other = next((c for c in parent.named_children if c != deref), None)
        if op is not None and node_text(op) in ("==", "!=") and _is_null(other):
            return False
        return None
    if kind == "condition_clause" or (
        kind in ("if_statement", "while_statement")
        and parent.child_by_field_name("condition") == deref
    ):
        return False
    return None


def _slot(body: Node, name: str, wrappers: frozenset[str]) -> bool | None:
    """Whether the body uses parameter `name` only as a slot; True if it fills it."""
    fills = False
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node_text(node) == name:
            parent = node.parent
            if (
                parent is None
                or parent.type != "pointer_expression"
                or node_text(parent.child_by_field_name("operator") or parent) != "*"
            ):
                return None
            use = _deref_use(parent, wrappers)
            if use is None:
                return None
            fills = fills or use
            continue
        if node.type not in ("sizeof_expression", "alignof_expression"):
            stack.extend(node.named_children)  # `sizeof **p` reads nothing
    return fills


def pointer_slots(
    nodes: Sequence[Node],
    known: frozenset[Slot] = frozenset(),
    wrappers: frozenset[str] = frozenset(),
) -> frozenset[Slot]:
    """The slot parameters of the definitions `nodes`, with `known` (the headers')."""
    found: dict[str, set[tuple[int, bool]] | None] = {}
    for node in nodes:
        declarator = _declarator(node) if node.type == "function_definition" else None
        body = node.child_by_field_name("body")
        name_node = declarator.child_by_field_name("declarator") if declarator else None
        params = declarator.child_by_field_name("parameters") if declarator else None
        if body is None or name_node is None or params is None:
            continue
        name = "".join(node_text(name_node).split()).rsplit("::", 1)[-1]
        slots: set[tuple[int, bool]] = set()
        decls = [
            p
            for p in params.named_children
            if p.type in ("parameter_declaration", "optional_parameter_declaration")
        ]
        for position, param in enumerate(decls):
            pname, levels = _levels(param.child_by_field_name("declarator"))
            if pname is None or levels < 2:
                continue
            fills = _slot(body, pname, wrappers)
            if fills is not None:
                slots.add((position, fills))
        if name in found:
            found[name] = None  # two definitions: which one is called is unknown
        else:
            found[name] = slots
    out = {(n, p, f) for n, s in found.items() if s for p, f in s}
    mine = set(found)
    return frozenset(out | {s for s in known if s[0] not in mine})


def slot_fills(taken: Node, args: Node, slots: frozenset[Slot]) -> bool | None:
    """For `&p` (`taken`) in the arguments `args` of a call: None if not a slot.

    True when the callee stores a fresh block in `*p`, False when it only frees
    or nulls it.
    """
    call = args.parent
    if args.type != "argument_list" or call is None:
        return None
    argument = taken
    while argument.parent is not None and argument.parent != args:
        argument = argument.parent
    name = (called_name(call) or "").rsplit("::", 1)[-1]
    position = next(
        (k for k, child in enumerate(args.named_children) if child == argument), -1
    )
    found = [fills for n, p, fills in slots if n == name and p == position]
    return found[0] if found else None
