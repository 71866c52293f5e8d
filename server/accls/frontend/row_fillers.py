"""Functions that fill the rows of a table they are given with fresh blocks.

`void own_rows(double **p, int n) { for (k ..) p[k] = malloc(..); }` stores in
every slot it sets a block of its own, and does nothing else with the table
but read or write its elements and hand a row to code that keeps no pointer
(`memset`, `free`, a borrower). A caller's table passed to it holds, after the
call, rows that overlap nothing else, as if the caller had stored each
`malloc` itself. A slot stored from anything but an allocator (`p[1] = p[0] +
n / 2`, `p[k] = buf`), a row copied, or the table handed on is no filler.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tree_sitter import Node

from accls.frontend.allocator_calls import DEVICE_ALLOCATORS, allocator, called_name
from accls.frontend.borrowers import _definition, _parameters
from accls.frontend.decls import body_locals
from accls.frontend.exprs import node_text
from accls.frontend.library import Effect, library
from accls.frontend.macros import MacroTable
from accls.frontend.pointer_flow import (
    argument_position,
    call_name_of,
    flows_to,
    outer_subscript,
)
from accls.frontend.row_steady import in_sizeof

__all__ = ["Filler", "row_filler_parameters"]

Filler = tuple[str, int]  # a function and the position of the table it fills
_FREEING = frozenset({"free", "sizeof", "assert"})  # keep no pointer, store no slot


def row_filler_parameters(
    nodes: Sequence[Node],
    macros: MacroTable,
    wrappers: frozenset[str],
    borrows: frozenset[tuple[str, int]],
    known: frozenset[Filler] = frozenset(),
) -> frozenset[Filler]:
    """(function, position) of the `T **` parameters whose slots get fresh blocks.

    `wrappers` are the allocator wrappers, `borrows` the calls that keep no
    pointer passed at a position; `known`, fillers of the project's other files
    (a name this file defines or a macro hides is its own). A name defined
    twice is left out: which one is built is not known here.
    """
    found: dict[str, set[int] | None] = {}
    macro = set(macros.functions) | set(macros.objects)
    # A macro's body may store a slot through a parameter's name, out of sight.
    bodies = " ".join(
        [*macros.objects.values(), *(m.body for m in macros.functions.values())]
    )
    named = set(re.findall(r"[A-Za-z_]\w*", bodies))
    for node in nodes:
        definition = _definition(node) if node.type == "function_definition" else None
        if definition is None:
            continue
        name = definition[0]
        if name in found:
            found[name] = None
            continue
        body = node.child_by_field_name("body")
        params = _parameters(definition[1], macros)
        found[name] = set()
        if body is None or params is None or name in macro:
            continue
        hidden = {v.name for v in body_locals(body, macros)} | named
        for at, param in enumerate(params):
            if param.pointers != 2 or param.dims or param.name in hidden:
                continue
            if _fills(body, param.name, wrappers, borrows):
                found[name] = {*(found[name] or ()), at}
    out = {(n, at) for n, ats in found.items() if ats for at in ats}
    return frozenset(out | {f for f in known if f[0] not in found})


def _fills(
    body: Node,
    table: str,
    wrappers: frozenset[str],
    borrows: frozenset[tuple[str, int]],
) -> bool:
    """Whether every use of `table` in `body` is an element or a fresh slot store."""
    stores = 0
    stack = [body]
    while stack:
        node = stack.pop()
        stack.extend(node.named_children)
        if node.type != "identifier" or node_text(node) != table or in_sizeof(node):
            continue
        outer, depth = outer_subscript(node)
        if depth >= 2:
            continue  # an element: its value, not a row pointer
        if depth == 0:
            return False  # the table itself copied, handed on, shifted or tested
        parent = outer.parent
        if parent is None or parent.type in ("update_expression", "pointer_expression"):
            return False  # `p[i]++`, `&p[i]` (its slot), `*p[i]`
        if (
            parent.type == "assignment_expression"
            and parent.child_by_field_name("left") == outer
        ):
            if not _fresh_store(parent, wrappers):
                return False
            stores += 1
            continue
        receiver = flows_to(outer)
        if receiver is None:
            continue  # `p[i] == NULL`: the row's value read, kept nowhere
        if receiver.type != "argument_list":
            return False  # copied, stored or returned: another name holds the row
        if not _keeps_none(receiver, outer, borrows):
            return False
    return stores > 0


def _fresh_store(assignment: Node, wrappers: frozenset[str]) -> bool:
    """`p[i] = malloc(..)`: a host block of its own stored in the slot."""
    operator = assignment.child_by_field_name("operator")
    if operator is None or node_text(operator) != "=":
        return False
    value = assignment.child_by_field_name("right")
    found = allocator(value)
    if found is None:
        found = called_name(value) if called_name(value) in wrappers else None
    return found is not None and found not in DEVICE_ALLOCATORS


def _keeps_none(
    arguments: Node, row: Node, borrows: frozenset[tuple[str, int]]
) -> bool:
    """Whether the call keeps no pointer it gets at the row's position."""
    called = call_name_of(arguments)
    if called in _FREEING:
        return True
    position = argument_position(arguments, row)
    if (called, position) in borrows:
        return True
    entry = library().get(called or "")
    return (
        entry is not None
        and entry.effect is Effect.MEMORY
        and position in (*entry.writes, *entry.reads)
    )
