"""The file's and its headers' typedefs and struct fields, enough to read access paths.

`t[k][i]` reads a pointer out of `t` when `t` is `double *t[2]` and stays inside one
object when `t` is `double (*t)[3]` or `real3 *t` with `typedef double real3[3]`:
which one it is decides whether two references can overlap. The table keeps each
typedef's declarator levels and each struct's fields.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.decls import (
    field_vars,
    holds_anonymous_union,
    type_text,
    typedef_vars,
)
from accls.frontend.enumerators import file_enumerators
from accls.frontend.exprs import node_text
from accls.frontend.macros import MacroTable
from accls.frontend.model import Var
from accls.frontend.tsparser import top_level_nodes
from accls.frontend.typetable import TypeTable

__all__ = ["collect_types"]


def _structs(
    node: Node,
    macros: MacroTable,
    out: list[tuple[str, tuple[Var, ...]]],
    unions: set[str],
    holders: set[str],
) -> None:
    """Every struct or union with a body under `node`, by key."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in ("struct_specifier", "union_specifier"):
            body = current.child_by_field_name("body")
            name = current.child_by_field_name("name")
            keyword = "struct" if current.type == "struct_specifier" else "union"
            key = f"{keyword} {node_text(name)}" if name is not None else ""
            if name is None:
                # `union { ... } u;`: the variable's type is the specifier's text.
                key = type_text(current)
            if body is not None and key:
                out.append((key, field_vars(body, macros)))
                if holds_anonymous_union(body) and keyword == "struct":
                    unions.add(key)
                    holders.add(key)
        # A struct has children; tokens and names are not walked.
        stack.extend(c for c in current.named_children if c.child_count)


def collect_types(root: Node, macros: MacroTable) -> TypeTable:
    """The typedefs and structs declared at file scope under `root`."""
    typedefs: list[tuple[str, str, str]] = []
    unions: set[str] = set()
    holders: set[str] = set()
    volatiles: set[str] = set()
    structs: list[tuple[str, tuple[Var, ...]]] = []
    extents: list[tuple[str, tuple[str | None, ...]]] = []
    for node in top_level_nodes(root):
        if node.type not in (
            "type_definition",
            "declaration",
            "struct_specifier",
            "union_specifier",
        ):
            continue
        _structs(node, macros, structs, unions, holders)
        if node.type != "type_definition":
            continue
        type_node = node.child_by_field_name("type")
        anonymous = (
            type_node is not None
            and type_node.type in ("struct_specifier", "union_specifier")
            and type_node.child_by_field_name("name") is None
            and type_node.child_by_field_name("body") is not None
        )
        for var in typedef_vars(node, macros):
            if var.volatile or var.type in volatiles:
                volatiles.add(var.name)  # `typedef volatile int vint;`
            if anonymous and type_node is not None:
                body = type_node.child_by_field_name("body")
                if type_node.type == "union_specifier":
                    unions.update((var.name, f"<anonymous {var.name}>"))
                elif body is not None and holds_anonymous_union(body):
                    unions.update((var.name, f"<anonymous {var.name}>"))
                    holders.update((var.name, f"<anonymous {var.name}>"))
                if body is not None and not var.shape:
                    structs.append((var.name, field_vars(body, macros)))
                    continue
                # `typedef struct {...} *P`: levels over a struct only P names.
                key = f"<anonymous {var.name}>"
                if body is not None:
                    structs.append((key, field_vars(body, macros)))
                typedefs.append((var.name, key, var.shape))
                continue
            typedefs.append((var.name, var.type, var.shape))
            if var.dims and var.shape == "[" * len(var.dims):
                extents.append((var.name, var.dims))
    return TypeTable(
        typedefs=tuple(typedefs),
        structs=tuple(structs),
        unions=frozenset(unions),
        holders=frozenset(holders),
        volatiles=frozenset(volatiles),
        extents=tuple(extents),
        enumerators=file_enumerators(root),
    )
