"""Fortran program units: programs, modules, procedures and what they contain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter_fortran
from tree_sitter import Language, Node, Parser

from accls.frontend.exprs import node_text
from accls.frontend.fortran_decls import FDecl, declarations
from accls.frontend.fortran_exprs import name_of
from accls.frontend.fortran_kinds import kind_parameters

__all__ = ["HEADS", "UNITS", "Unit", "fortran_parser", "program_units", "unit_uses"]

UNITS = frozenset({"program", "module", "subroutine", "function", "submodule"})
HEADS = frozenset(
    {
        "program_statement",
        "module_statement",
        "subroutine_statement",
        "function_statement",
        "submodule_statement",
        "internal_procedures",
        "end_program_statement",
        "end_module_statement",
        "end_subroutine_statement",
        "end_function_statement",
        "end_submodule_statement",
        "module_procedure",
    }
)


@lru_cache(maxsize=1)
def fortran_parser() -> Parser:
    """The tree-sitter parser of Fortran (one per process)."""
    return Parser(Language(tree_sitter_fortran.language()))


@dataclass(frozen=True, slots=True)
class Unit:
    """A program unit or contained procedure: its declarations and hosts."""

    node: Node
    name: str
    kind: str
    dummies: tuple[str, ...]
    decls: dict[str, FDecl]
    host: tuple[Unit, ...]  # enclosing units, outermost first
    pure: bool


_UNIT_HEADS = {
    "program_statement": "program",
    "module_statement": "module",
    "subroutine_statement": "subroutine",
    "function_statement": "function",
}


def _head(node: Node) -> Node | None:
    return next((c for c in node.named_children if c.type in _UNIT_HEADS), None)


def _unit(node: Node, host: tuple[Unit, ...], kinds: Mapping[str, str]) -> Unit:
    """One unit: its name, kind, dummies, declarations and hosts."""
    head = _head(node)
    name = ""
    dummies: tuple[str, ...] = ()
    pure = False
    if head is not None:
        label = next((c for c in head.named_children if c.type == "name"), None)
        name = name_of(label) if label is not None else ""
        params = next((c for c in head.named_children if c.type == "parameters"), None)
        if params is not None:
            dummies = tuple(
                name_of(c) for c in params.named_children if c.type == "identifier"
            )
        qualifiers = " ".join(
            node_text(c).lower()
            for c in head.named_children
            if c.type == "procedure_qualifier"
        )
        pure = "pure" in qualifiers or "elemental" in qualifiers
    statements = [c for c in node.named_children if c.type not in HEADS]
    scope = "global" if node.type == "module" else "local"
    decls = declarations(statements, frozenset(dummies), scope, kinds)
    kind = (
        node.type
        if node.type in UNITS
        else _UNIT_HEADS.get(head.type if head else "", "")
    )
    return Unit(node, name or "<main>", kind, dummies, decls, host, pure)


def program_units(root: Node) -> list[Unit]:
    """Every program unit and contained procedure, hosts before what they contain."""
    out: list[Unit] = []
    kinds = kind_parameters(root)

    def visit(node: Node, host: tuple[Unit, ...]) -> None:
        unit = _unit(node, host, kinds)
        out.append(unit)
        for child in node.named_children:
            if child.type == "internal_procedures":
                for proc in child.named_children:
                    if proc.type in UNITS:
                        visit(proc, (*host, unit))

    for node in root.named_children:
        if node.type in UNITS:
            visit(node, ())
        elif node.type == "ERROR" and _head(node) is not None:
            # A unit whose end did not parse (an unterminated `do`): its statements
            # still parse, so it is walked; the loop without an end is not modelled.
            visit(node, ())
    return out


def unit_uses(unit: Unit) -> list[str]:
    """The modules a unit `use`s, in order."""
    names: list[str] = []
    for use in unit.node.named_children:
        if use.type == "use_statement":
            module = next(
                (c for c in use.named_children if c.type == "module_name"), None
            )
            if module is not None:
                names.append(name_of(module))
    return names
