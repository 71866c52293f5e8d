"""Functions that never keep a pointer they are given: they only reach its block.

`finish(n, p)` that reads and writes `p[i].x` and stores `p` nowhere (no field,
no global, no `return`, no call that may keep it, not its address) gives the
pointer back to its caller as the only holder: a fresh block passed to it is
still fresh after the call. Uses a function-like macro brings in (`QG(i, j)`
for `q[(j) * n + i]`) count as long as they only take elements.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from accls.frontend.decls import body_locals, declared_vars
from accls.frontend.exprs import node_text
from accls.frontend.freshness import PointerFlow
from accls.frontend.macros import MacroTable, expand_calls, expand_objects
from accls.frontend.model import Var
from accls.frontend.pointer_calls import pointer_names

__all__ = ["Borrow", "borrowing_parameters"]

Borrow = tuple[str, int]  # a function and the position of a parameter it never keeps
_ROUNDS = 8  # chains of borrowers deeper than this stay unknown


def _definition(node: Node) -> tuple[str, Node] | None:
    """The name and function declarator of a definition."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    name = decl.child_by_field_name("declarator") if decl is not None else None
    if decl is None or name is None or name.type != "identifier":
        return None
    return node_text(name), decl


def _parameters(declarator: Node, macros: MacroTable) -> list[Var] | None:
    """The parameters in order (one Var each), or None for K&R or variadic lists."""
    plist = declarator.child_by_field_name("parameters")
    if plist is None:
        return None
    out: list[Var] = []
    for param in plist.named_children:
        if param.type == "comment":
            continue
        if param.type != "parameter_declaration":
            return None  # `...`, or K&R names declared after the list
        found = declared_vars(param, "param", macros)
        if len(found) != 1:
            if node_text(param).strip() == "void":
                continue  # `f(void)`
            return None
        out.append(found[0])
    return out


def _macro_safe(body: Node, name: str, macros: MacroTable) -> bool:
    """Whether the macros `body` uses reach `name` only as elements (`name[k]`).

    The tree walk sees the code as written; a macro may name the pointer in its
    replacement (`#define KEEP g = p`), which that walk never sees.
    """
    text = node_text(body)
    expanded = expand_calls(expand_objects(text, macros), macros)
    if expanded == text:
        return True
    pattern = re.compile(rf"(&\s*\(*\s*)?\b{re.escape(name)}\b(\s*\[)?")

    def loose(code: str) -> int:
        return sum(1 for m in pattern.finditer(code) if m.group(1) or not m.group(2))

    return loose(expanded) <= loose(text)


def escaping_pointers(
    body: Node,
    params: list[Var],
    locals_: list[Var],
    borrows: frozenset[tuple[str, int]] = frozenset(),
) -> frozenset[str]:
    """The pointer parameters of `params` whose value `body` may keep somewhere.

    Kept: returned, stored in memory (a field, a global, a row), passed to a
    call other than `borrows`, or its address taken; so is a parameter copied
    into a local whose value is kept.
    """
    names = {p.name for p in params}
    flow = PointerFlow([*params, *locals_], frozenset(), borrows=borrows)
    flow.walk(body)
    out: set[str] = set()
    for held in flow.leaves | flow.address:
        todo, seen = [held], set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            todo.extend(flow.sources.get(name, ()))
        out |= seen & names
    return frozenset(out)


def borrowing_parameters(
    nodes: Sequence[Node],
    macros: MacroTable,
    known: frozenset[Borrow] = frozenset(),
) -> frozenset[Borrow]:
    """(function, position) of the pointer parameters the definitions never keep.

    `known` holds such parameters of functions found elsewhere (the headers').
    A name defined twice (`#if` variants) is left out: which one is built is not
    known here.
    """
    candidates: list[tuple[str, Node, list[Var], list[Var], frozenset[str]]] = []
    for node in nodes:
        found = _definition(node) if node.type == "function_definition" else None
        body = node.child_by_field_name("body")
        if found is None or body is None:
            continue
        params = _parameters(found[1], macros)
        if params is None:
            continue
        locals_ = [v for v in body_locals(body, macros) if not v.static]
        # Function pointers among the parameters and locals hide functions.
        held = pointer_names([found[1].child_by_field_name("parameters"), body])
        candidates.append((found[0], body, params, locals_, held))
    names = [c[0] for c in candidates]
    twice = {n for n in names if names.count(n) > 1}
    # A macro of a function's name replaces its calls with other code.
    macro = set(macros.functions) | set(macros.objects)
    borrows = {b for b in known if b[0] not in macro}
    for _ in range(_ROUNDS):
        before = len(borrows)
        for name, body, params, locals_, held in candidates:
            if name in twice or name in macro:
                continue
            pointers = [
                (at, p)
                for at, p in enumerate(params)
                if p.pointers and not p.dims and (name, at) not in borrows
            ]
            if not pointers:
                continue
            lent = frozenset(b for b in borrows if b[0] not in held)
            escaping = escaping_pointers(body, params, locals_, lent)
            for at, param in pointers:
                if param.name not in escaping and _macro_safe(body, param.name, macros):
                    borrows.add((name, at))
        if len(borrows) == before:
            break
    return frozenset(borrows)
