"""Derived types: their components, to tell storage of an element from a pointer's."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from accls.frontend.fortran_decls import FDecl, declarations
from accls.frontend.fortran_exprs import name_of

__all__ = [
    "Components",
    "data_member",
    "derived_types",
    "member_base",
    "member_path",
    "member_type",
    "reaches_pointer",
]

# Type name -> its components by name.
Components = dict[str, dict[str, FDecl]]


def derived_types(roots: Iterable[Node]) -> Components:
    """The derived types defined under `roots` (this file, used modules' units)."""
    found: Components = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node.type != "derived_type_definition":
            stack.extend(node.named_children)
            continue
        head = node.named_children[0] if node.named_children else None
        label = (
            next((c for c in head.named_children if c.type == "type_name"), None)
            if head is not None
            else None
        )
        if label is None:
            continue
        parts = [c for c in node.named_children if c.type == "variable_declaration"]
        found.setdefault(name_of(label), declarations(parts, frozenset()))
    return found


def member_path(node: Node) -> list[str]:
    """The component names of `a(x)%b(k)%c`, outermost first: `b`, `c`."""
    names: list[str] = []
    base = node
    while base.named_children:
        first = base.named_children[0]
        if base.type == "derived_type_member_expression":
            member = base.named_children[-1]
            names.append(name_of(member))
        elif base.type != "call_expression":
            break
        base = first
    return list(reversed(names))


def reaches_pointer(types: Components, decl: FDecl | None, path: list[str]) -> bool:
    """Whether `path` from an object of `decl`'s type may pass through a pointer.

    A `pointer` component's target is storage of its own, which another
    element's component may share; a type or component not defined in sight
    may be one, so it counts as one.
    """
    kind = decl.var.type if decl is not None else ""
    for name in path:
        if not kind.startswith("struct "):
            return True
        component = types.get(kind.removeprefix("struct "), {}).get(name)
        if component is None or "pointer" in component.attrs:
            return True
        kind = component.var.type
    return False


def member_type(types: Components, decl: FDecl | None, path: list[str]) -> str:
    """The type of `a%b%c` from `a`'s declaration: "" when out of sight."""
    kind = decl.var.type if decl is not None else ""
    for name in path:
        component = types.get(kind.removeprefix("struct "), {}).get(name)
        if not kind.startswith("struct ") or component is None:
            return ""
        kind = component.var.type
    return kind


def member_base(node: Node) -> Node:
    """The innermost node of `a(x)%b%c`: `a`, if the path starts at a name."""
    base = node
    while base.named_children and base.type in (
        "derived_type_member_expression",
        "call_expression",
    ):
        base = base.named_children[0]
    return base


def data_member(node: Node, decls: dict[str, FDecl], types: Components) -> bool:
    """Whether `a(x)%b%c` names a component of a type in sight, not a binding."""
    base = member_base(node)
    if base.type != "identifier":
        return False
    decl = decls.get(name_of(base))
    return bool(member_type(types, decl, member_path(node)))
