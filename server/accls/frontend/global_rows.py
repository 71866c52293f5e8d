"""A file's `static` pointer table whose rows are each their own allocation.

`static double **g;` set in `init()` by `g = malloc(..)` (or a row-table
wrapper, `g = alloc2d(n, m)`) and `g[i] = malloc(..)` has rows that overlap
nothing, as a local table filled so has. A `static` global is the file's
alone, so every write of it is in sight: each store to the table or to a row
must be a fresh host allocation (or null); the table and its rows may be
read, indexed, compared, freed or handed to a call that leaves rows as they
are (`row_steady`), and nothing else: no copy, no `*g = p`, no address taken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.allocator_calls import DEVICE_ALLOCATORS, allocator, called_name
from accls.frontend.borrowers import _definition, _parameters
from accls.frontend.decls import body_locals
from accls.frontend.exprs import node_text
from accls.frontend.macros import MacroTable
from accls.frontend.model import Var
from accls.frontend.pointer_flow import (
    argument_position,
    call_name_of,
    flows_to,
    is_null,
    outer_subscript,
    row_depth,
)
from accls.frontend.row_steady import in_sizeof

__all__ = ["fresh_row_globals", "with_global_rows"]

_FREEING = frozenset({"free", "sizeof", "assert"})
_TESTS = frozenset({"==", "!=", "!"})  # `g == NULL`, `!g[i]`: a test, no copy


def fresh_row_globals(
    globals_: Sequence[Var],
    fn_nodes: Sequence[Node],
    decl_nodes: Sequence[Node],
    macros: MacroTable,
    wrappers: frozenset[str],
    makers: frozenset[str],
    steady: frozenset[tuple[str, int]],
) -> frozenset[str]:
    """The names of `globals_` that are `static` tables of fresh, distinct rows.

    `wrappers` return fresh blocks (a row's store may call one), `makers` fresh
    tables of fresh rows (the table's may); `steady` are the calls that leave
    a table's rows as they are.
    """
    tables = {
        v.name
        for v in globals_
        if v.scope == "global" and v.static and not v.dims and row_depth(v) == 1
    }
    if not tables:
        return frozenset()
    # A macro's body may store to the table where no name of it is in sight.
    bodies = " ".join(
        [*macros.objects.values(), *(m.body for m in macros.functions.values())]
    )
    bad = {n for n in tables if re.search(rf"\b{re.escape(n)}\b", bodies)}
    for node in decl_nodes:
        for name, value in _initialised(node):
            if name in tables and not is_null(value):
                bad.add(name)
    for node in fn_nodes:
        found = _definition(node) if node.type == "function_definition" else None
        body = node.child_by_field_name("body")
        params = _parameters(found[1], macros) if found is not None else None
        if found is None or body is None or params is None:
            return frozenset()  # a definition not read: its writes are unseen
        hidden = {p.name for p in params} | {v.name for v in body_locals(body, macros)}
        bad |= tables & hidden  # the name means another variable there
        for use in _identifiers(body, tables - bad):
            if not _fresh_use(use, (makers, wrappers), steady, hidden):
                bad.add(node_text(use))
    return frozenset(tables - bad)


def with_global_rows(
    globals_: tuple[Var, ...], names: frozenset[str], header_code: str
) -> tuple[Var, ...]:
    """`globals_` with fresh rows on `names` that no header's code mentions.

    A header's function included after the declaration could write the table.
    """
    named = {n for n in names if not re.search(rf"\b{re.escape(n)}\b", header_code)}
    if not named:
        return globals_
    return tuple(
        replace(g, fresh_rows=True) if g.name in named and g.static else g
        for g in globals_
    )


def _initialised(node: Node) -> list[tuple[str, Node]]:
    """(name, value) of each initialized declarator of a declaration."""
    out = []
    for child in node.named_children:
        if child.type != "init_declarator":
            continue
        decl = child.child_by_field_name("declarator")
        while decl is not None and decl.type != "identifier":
            decl = decl.child_by_field_name("declarator")
        value = child.child_by_field_name("value")
        if decl is not None and value is not None:
            out.append((node_text(decl), value))
    return out


def _identifiers(body: Node, names: set[str]) -> list[Node]:
    found, stack = [], [body]
    while stack:
        node = stack.pop()
        if node.type == "identifier" and node_text(node) in names:
            found.append(node)
        stack.extend(node.named_children)
    return found


def _fresh_value(value: Node | None, wrappers: frozenset[str]) -> bool:
    """A host allocation, a block of one of `wrappers`, or null."""
    if value is None or is_null(value):
        return value is not None
    made = allocator(value)
    if made is not None:
        return made not in DEVICE_ALLOCATORS
    return called_name(value) in wrappers


def _fresh_use(
    node: Node,
    calls: tuple[frozenset[str], frozenset[str]],
    steady: frozenset[tuple[str, int]],
    hidden: set[str],
) -> bool:
    """One occurrence of the table's name keeps its rows fresh and apart."""
    if in_sizeof(node):
        return True  # `sizeof *g`: never evaluated
    outer, depth = outer_subscript(node)
    if depth >= 2:
        return True  # an element
    parent = outer.parent
    if parent is None:
        return False
    if (
        parent.type == "assignment_expression"
        and parent.child_by_field_name("left") == outer
    ):
        operator = parent.child_by_field_name("operator")
        plain = operator is not None and node_text(operator) == "="
        value = parent.child_by_field_name("right")
        return plain and _fresh_value(value, calls[min(depth, 1)])
    operator = parent.child_by_field_name("operator")
    if parent.type in ("binary_expression", "unary_expression") and (
        operator is not None and node_text(operator) in _TESTS
    ):
        return True
    if depth == 1:
        if parent.type in ("update_expression", "pointer_expression"):
            return False
        receiver = flows_to(outer)
        return receiver is None or (
            receiver.type == "argument_list" and call_name_of(receiver) in _FREEING
        )
    if parent.type != "argument_list":
        return False
    called = call_name_of(parent)
    if called in _FREEING:
        return True
    return called not in hidden and (called, argument_position(parent, outer)) in steady
