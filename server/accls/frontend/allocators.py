"""Allocator wrappers: the program's functions whose every return is a fresh block.

`static void *comdMalloc(size_t n) { return malloc(n); }`, or PRK's
`prk_malloc`, which fills a local through `posix_memalign(&p, ..)` and returns
it, hand their caller memory that overlaps nothing, like `malloc` itself. A
function that returns a global buffer, a block it also keeps in a field, or a
parameter is no wrapper. Wrappers of wrappers are found by iterating.
"""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Node

from accls.frontend.decls import body_locals, declared_vars
from accls.frontend.exprs import node_text
from accls.frontend.macros import MacroTable
from accls.frontend.model import Var
from accls.frontend.returned_blocks import returns_fresh, returns_fresh_rows

__all__ = ["allocator_wrappers", "row_table_wrappers"]

_ROUNDS = 8  # wrappers nested deeper than this stay unknown


def _pointer_function(node: Node) -> tuple[str, Node] | None:
    """The name and declarator of a definition that returns a pointer."""
    decl = node.child_by_field_name("declarator")
    pointer = False
    while decl is not None and decl.type != "function_declarator":
        pointer = pointer or decl.type == "pointer_declarator"
        decl = decl.child_by_field_name("declarator")
    if decl is None or not pointer:
        return None
    name = decl.child_by_field_name("declarator")
    if name is None or name.type != "identifier":
        return None
    return node_text(name), decl


def _defined_name(node: Node) -> str:
    """The name a function definition defines ("" when it is not an identifier)."""
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        decl = decl.child_by_field_name("declarator")
    name = decl.child_by_field_name("declarator") if decl is not None else None
    return node_text(name) if name is not None and name.type == "identifier" else ""


def _params(declarator: Node, macros: MacroTable) -> frozenset[str]:
    params = declarator.child_by_field_name("parameters")
    names: set[str] = set()
    for decl in params.named_children if params is not None else ():
        if decl.type == "parameter_declaration":
            names |= {v.name for v in declared_vars(decl, "param", macros)}
    return frozenset(names)


def allocator_wrappers(
    nodes: Sequence[Node],
    macros: MacroTable,
    known: frozenset[str] = frozenset(),
    borrows: frozenset[tuple[str, int]] = frozenset(),
    project: frozenset[str] = frozenset(),
) -> frozenset[str]:
    """The functions of `nodes` (definitions) that return only fresh blocks.

    `known` names wrappers found elsewhere (the headers'), which these may call;
    `borrows`, the calls that never keep a pointer passed at a position;
    `project`, the wrappers the project's other files define, unless `nodes`
    define a function of the name (the file's own is the one its calls reach).
    """
    mine = {_defined_name(n) for n in nodes if n.type == "function_definition"}
    known = known | (project - mine)
    candidates = _candidates(nodes, macros)
    names = [c[0] for c in candidates]
    twice = {n for n in names if names.count(n) > 1}  # which one is built is unknown
    wrappers = set(known)
    for _ in range(_ROUNDS):
        before = len(wrappers)
        for name, body, locals_, params in candidates:
            if name in wrappers or name in twice:
                continue
            others = frozenset(wrappers - {name})
            if returns_fresh(body, locals_, params, others, borrows):
                wrappers.add(name)
        if len(wrappers) == before:
            break
    return frozenset(wrappers)


def row_table_wrappers(
    nodes: Sequence[Node],
    macros: MacroTable,
    wrappers: frozenset[str],
    borrows: frozenset[tuple[str, int]] = frozenset(),
    project: frozenset[str] = frozenset(),
    steady: frozenset[tuple[str, int]] = frozenset(),
) -> frozenset[str]:
    """The allocator wrappers of `nodes` that return a table of fresh, distinct rows.

    `double **alloc2d(n, m)`: `t = malloc(n * sizeof *t)`, then each
    `t[i] = malloc(m * ..)`. `project` names those of the project's other
    files, unless `nodes` define a function of the name.
    """
    mine = {_defined_name(n) for n in nodes if n.type == "function_definition"}
    makers = set(project - mine) & set(wrappers)
    candidates = [c for c in _candidates(nodes, macros) if c[0] in wrappers]
    names = [c[0] for c in candidates]
    for _ in range(_ROUNDS):
        before = len(makers)
        for name, body, locals_, params in candidates:
            if name in makers or names.count(name) > 1:
                continue
            others = frozenset(makers - {name})
            if returns_fresh_rows(
                body, locals_, params, wrappers, others, borrows, steady
            ):
                makers.add(name)
        if len(makers) == before:
            break
    return frozenset(makers)


def _candidates(
    nodes: Sequence[Node], macros: MacroTable
) -> list[tuple[str, Node, list[Var], frozenset[str]]]:
    """Each definition of `nodes` that returns a pointer: name, body, locals, params."""
    candidates: list[tuple[str, Node, list[Var], frozenset[str]]] = []
    for node in nodes:
        found = _pointer_function(node) if node.type == "function_definition" else None
        body = node.child_by_field_name("body")
        if found is None or body is None:
            continue
        name, declarator = found
        params = _params(declarator, macros)
        candidates.append((name, body, body_locals(body, macros), params))
    return candidates
