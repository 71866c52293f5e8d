"""Functions that leave the rows of a table they are given where they were.

`free2d(t, n)` frees each `t[i]` and `t`; `print2d(t, n, m)` reads `t[i][k]`.
Neither stores a row pointer (`t[1] = t[0]`), takes a row slot's address, or
hands a row or the table to code that might: a table from a row-table wrapper
passed to one keeps rows that overlap nothing. A parameter used any other way
(copied, returned, `*t = p`, `t + 1` passed on) is not steady.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from accls.frontend.borrowers import _definition, _parameters
from accls.frontend.decls import body_locals
from accls.frontend.exprs import node_text
from accls.frontend.library import library
from accls.frontend.macros import MacroTable
from accls.frontend.pointer_flow import (
    argument_position,
    call_name_of,
    flows_to,
    outer_subscript,
)
from accls.frontend.row_slots import slots_kept

__all__ = ["in_sizeof", "row_steady_parameters"]

Steady = tuple[str, int]  # a function and the position of a table parameter
_ROUNDS = 8
_FREEING = frozenset({"free", "sizeof", "assert"})  # keep no pointer, write no row


def row_steady_parameters(
    nodes: Sequence[Node], macros: MacroTable, known: frozenset[Steady] = frozenset()
) -> frozenset[Steady]:
    """(function, position) of the table parameters whose rows the body never sets.

    Library calls that only reorder a table's rows (`qsort`) count too, and
    `known`, those of the project's other files (a name this file defines or a
    macro hides is its own).
    """
    candidates: list[tuple[str, Node, dict[int, str], frozenset[str]]] = []
    mine: set[str] = set()
    for node in nodes:
        found = _definition(node) if node.type == "function_definition" else None
        if found is not None:
            mine.add(found[0])
        body = node.child_by_field_name("body")
        params = _parameters(found[1], macros) if found is not None else None
        if found is None or body is None or params is None:
            continue
        names = frozenset(
            {p.name for p in params} | {v.name for v in body_locals(body, macros)}
        )
        tables = {at: p.name for at, p in enumerate(params) if p.pointers >= 2}
        if tables:
            candidates.append((found[0], body, tables, names))
    defined = [c[0] for c in candidates]
    macro = set(macros.functions) | set(macros.objects)
    # A macro's body may store a row through a parameter's name, out of sight.
    bodies = " ".join(
        [*macros.objects.values(), *(m.body for m in macros.functions.values())]
    )
    named = set(re.findall(r"[A-Za-z_]\w*", bodies))
    # `qsort(t, ..)` only reorders the rows (the library's `permutes`), unless
    # the file defines a function of the name.
    steady: set[Steady] = {
        (f.name, at)
        for f in library().values()
        for at in f.permutes
        if f.name not in mine and f.name not in macro
    }
    steady |= {s for s in known if s[0] not in mine and s[0] not in macro}
    for _ in range(_ROUNDS):
        before = len(steady)
        for name, body, tables, names in candidates:
            if defined.count(name) > 1 or name in macro:
                continue
            hidden = {v.name for v in body_locals(body, macros)} | named
            for at, table in tables.items():
                if (name, at) in steady or table in hidden:
                    continue
                uses, known = _uses(body, table), frozenset(steady)
                if all(_steady_use(use, known, names) for use in uses):
                    steady.add((name, at))
                elif all(_steady_use(use, known, names, True) for use in uses):
                    steady.add((name, ~at))  # its rows handed on, no slot stored
        if len(steady) == before:
            break
    return frozenset(steady)


def _uses(body: Node, name: str) -> list[Node]:
    found, stack = [], [body]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node_text(node) == name:
            found.append(node)
        stack.extend(node.named_children)
    return found


def _steady_use(
    node: Node, steady: frozenset[Steady], names: frozenset[str], handed: bool = False
) -> bool:
    """`node` (the table's name) reads an element or a row, or hands the table on.

    `handed`: a row passed to any call, and the table to a call that stores no
    slot, count too.
    """
    if in_sizeof(node):
        return True  # `sizeof *g`: never evaluated
    outer, depth = outer_subscript(node)
    if depth >= 2:
        return True  # an element: its value, not a row pointer
    parent = outer.parent
    if parent is None:
        return False
    if depth == 1:
        if parent.type in ("update_expression", "pointer_expression"):
            return False  # `t[i]++`, `&t[i]` (its slot), `*t[i]` (strict)
        if (
            parent.type == "assignment_expression"
            and parent.child_by_field_name("left") == outer
        ):
            return False  # `t[i] = ..`: a row re-pointed
        receiver = flows_to(outer)
        return receiver is None or (
            receiver.type == "argument_list"
            and (handed or call_name_of(receiver) in _FREEING)
        )
    if parent.type != "argument_list":
        return False  # copied, returned, shifted, dereferenced, tested
    called = call_name_of(parent)
    if called in _FREEING:
        return True
    position = argument_position(parent, outer)
    if handed and called not in names and slots_kept(steady, called, position):
        return True
    return called not in names and (called, position) in steady


def in_sizeof(node: Node) -> bool:
    """Whether `node` sits in a `sizeof`/`alignof` of its statement (no use of it)."""
    parent = node.parent
    while parent is not None and parent.type not in ("compound_statement",):
        if parent.type in ("sizeof_expression", "alignof_expression"):
            return True
        parent = parent.parent
    return False
