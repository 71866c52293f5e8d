"""Defined operations: `operator(+)`, `operator(.op.)`, `assignment(=)` as calls."""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Node

from accls.frontend.exprs import node_text, span_of
from accls.frontend.fortran_decls import FDecl
from accls.frontend.fortran_exprs import INTRINSICS, flat, name_of
from accls.frontend.fortran_types import (
    Components,
    member_base,
    member_path,
    member_type,
)
from accls.frontend.model import Call

__all__ = [
    "OPERATIONS",
    "assignment_calls",
    "defined_operations",
    "operation_calls",
    "operator_key",
]

OPERATIONS = frozenset(
    {
        "math_expression",
        "relational_expression",
        "logical_expression",
        "concatenation_expression",
        "unary_expression",
    }
)


# The old spellings of the relational operators: one operation each.
_SPELLINGS = {".eq.": "==", ".ne.": "/=", ".lt.": "<", ".le.": "<=", ".gt.": ">"}
_SPELLINGS[".ge."] = ">="


def operator_key(text: str) -> str:
    """An operator as the interfaces name it: lower case, one spelling."""
    word = "".join(text.split()).lower()
    return _SPELLINGS.get(word, word)


def defined_operations(roots: Iterable[Node]) -> dict[str, tuple[str, ...]]:
    """`interface operator(+)`, `operator(.op.)`, `assignment(=)`: their procedures.

    The key is the operator (`+`, `.op.`) or `=` for what an assignment may
    call: a defined assignment, and the final procedures of the types in sight.
    """
    found: dict[str, tuple[str, ...]] = {}
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node.type == "final_statement":
            # Intrinsic assignment finalizes its target first: a call too.
            finals = [
                name_of(c) for c in node.named_children if c.type == "method_name"
            ]
            found["="] = (*found.get("=", ()), *finals)
            continue
        if node.type != "interface":
            stack.extend(node.named_children)
            continue
        head = node.named_children[0] if node.named_children else None
        kind = (
            head.named_children[0] if head is not None and head.named_children else None
        )
        if kind is None or kind.type not in ("operator", "assignment"):
            continue
        if kind.type == "assignment":
            key = "="
        else:
            label = next(
                (c for c in kind.named_children if c.type == "operator_name"), None
            )
            if label is None:
                continue
            key = operator_key(name_of(label))
        names = [
            name_of(m)
            for s in node.named_children
            if s.type == "procedure_statement"
            for m in s.named_children
            if m.type == "method_name"
        ]
        # An interface body names a procedure defined out of sight: unknown.
        found[key] = (*found.get(key, ()), *(names or [f"operator({key})"]))
    return found


def operation_calls(
    node: Node,
    decls: dict[str, FDecl],
    types: Components,
    operations: dict[str, tuple[str, ...]],
) -> list[Call]:
    """`u + v`, `.op. u`: calls of the procedures an interface defines it by."""
    word = next((c for c in node.children if c.type == "user_defined_operator"), None)
    if word is not None:
        key = operator_key(node_text(word))
        defined = True  # `.op.` has no intrinsic meaning
    else:
        signs = [c for c in node.children if not c.is_named]
        key = operator_key(node_text(signs[0])) if signs else ""
        defined = any(maybe_derived(c, decls, types) for c in node.named_children)
    if key not in operations or not defined:
        return []
    operands = tuple(flat(c) for c in node.named_children if c is not word)
    return [Call(name, span_of(node), operands) for name in operations[key]]


def assignment_calls(
    node: Node,
    lhs: Node,
    rhs: Node,
    decls: dict[str, FDecl],
    types: Components,
    operations: dict[str, tuple[str, ...]],
) -> list[Call]:
    """`x = e` with `interface assignment(=)` in sight: the subroutines it may call."""
    if "=" not in operations or not maybe_derived(lhs, decls, types):
        return []
    return [
        Call(name, span_of(node), (flat(lhs), flat(rhs))) for name in operations["="]
    ]


def maybe_derived(node: Node, decls: dict[str, FDecl], types: Components) -> bool:
    """Whether the expression may be of a derived type (or of no known type).

    An intrinsic operator means a procedure only between operands of a derived
    type (or of types it has no meaning for); a name of no declared type (a
    function's result) may be one.
    """
    stack = [node]
    while stack:
        item = stack.pop()
        kind = _type_of(item, decls, types)
        if kind is None:
            stack.extend(item.named_children)
        elif kind in ("", "char") or kind.startswith("struct "):
            return True
    return False


def _type_of(node: Node, decls: dict[str, FDecl], types: Components) -> str | None:
    """A name's, an element's or a member's type; None for what has parts to look at."""
    if node.type == "derived_type_member_expression":
        found = member_path(node)
        base = member_base(node)
        if base.type != "identifier":
            return ""
        return member_type(types, decls.get(name_of(base)), found)
    if node.type == "call_expression" and node.named_children:
        callee = node.named_children[0]
        if callee.type == "derived_type_member_expression":
            return _type_of(callee, decls, types)
        if callee.type == "identifier" and name_of(callee) in decls:
            return decls[name_of(callee)].var.type  # an element or a substring
        return None if name_of(callee) in INTRINSICS else ""
    if node.type == "identifier":
        decl = decls.get(name_of(node))
        if decl is None:
            return None if name_of(node) in INTRINSICS else ""
        return decl.var.type
    return None
