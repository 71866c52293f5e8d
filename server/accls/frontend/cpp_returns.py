"""The return type of a call of an overloaded C++ function, where the call tells it.

`double v(int i)` and `Vec v(int i, int j)` share a name: `m.v(i, 1) + 2.0`
calls `Vec`'s `operator+`, not the builtin `+`. A method's declarations are kept
with the argument counts each may take; a call's count picks the type, and when
the overloads that count may run return different types the type is unknown (its
operators stay calls). A free name defined with two return types is unknown too.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_types import ClassInfo, CxxScope
from accls.frontend.exprs import node_text

__all__ = ["full_return", "method_return", "record_return", "record_signature"]

_LEVELS = {"pointer_declarator": "*", "reference_declarator": "&"}


def full_return(member: Node) -> str:
    """A declaration's return type with its declarator's `*` and `&`."""
    base = member.child_by_field_name("type")
    text = "".join(node_text(base).split()) if base is not None else ""
    decl = member.child_by_field_name("declarator")
    while decl is not None and decl.type != "function_declarator":
        text += _LEVELS.get(decl.type, "")
        inner = decl.child_by_field_name("declarator")
        if inner is None and decl.named_child_count:
            inner = decl.named_children[0]
        decl = inner
    return text


def record_signature(info: ClassInfo, name: str, counts: range, member: Node) -> None:
    """Keep one declaration of the method `name`: the counts it takes, its type."""
    base = member.child_by_field_name("type")
    entry = (counts, full_return(member), node_text(base) if base is not None else "")
    info.signatures.setdefault(name, []).append(entry)


def method_return(info: ClassInfo, name: str, count: int) -> str | None:
    """The return type text a call of `name` with `count` arguments gets.

    None when the declarations that count may run return different types, or
    when none of the class's declarations takes that count (a base's runs).
    """
    declared = info.signatures.get(name)
    if not declared:
        return info.methods.get(name)
    found = {(full, base) for counts, full, base in declared if count in counts}
    if len({full for full, _ in found}) != 1:
        return None
    return next(iter(found))[1]


def record_return(scope: CxxScope, name: str, member: Node, base: str) -> None:
    """Keep a definition's return type; a second, different one makes it mixed."""
    full = full_return(member)
    if scope.full_returns.setdefault(name, full) != full:
        scope.mixed_returns.add(name)
    scope.returns[name] = base
