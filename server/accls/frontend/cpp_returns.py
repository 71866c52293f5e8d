"""The return type of a call of an overloaded C++ function, where the call tells it.

`double v(int i)` and `Vec v(int i, int j)` share a name: `m.v(i, 1) + 2.0`
calls `Vec`'s `operator+`, not the builtin `+`. A method's declarations are kept
with the argument counts each may take; a call's count picks the type, and when
the overloads that count may run return different types the type is unknown (its
operators stay calls). A free name defined with two return types is unknown too.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_types import (
    BUILTIN,
    UNKNOWN,
    ClassInfo,
    CxxScope,
    CxxType,
    classify,
)
from accls.frontend.exprs import node_text

__all__ = [
    "free_return",
    "full_return",
    "method_return",
    "record_return",
    "record_signature",
]

_LEVELS = {"pointer_declarator": "*", "reference_declarator": "&"}


def full_return(member: Node) -> str:
    """A declaration's return type with its declarator's `*` and `&`."""
    base = member.child_by_field_name("type")
    text = " ".join(node_text(base).split()) if base is not None else ""
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


def method_return(
    info: ClassInfo, name: str, count: int, scope: CxxScope
) -> CxxType | None:
    """The type a call of the method `name` with `count` arguments gets.

    None when no declaration of the class was kept (the caller's own lookup
    then), UNKNOWN when none takes that count (a base's overload runs).
    """
    declared = info.signatures.get(name)
    if not declared:
        return None
    found = {(full, base) for counts, full, base in declared if count in counts}
    return _agreed(found, scope)


def free_return(scope: CxxScope, name: str) -> CxxType | None:
    """The type of a call of a free `name` defined with several return types."""
    found = scope.full_returns.get(name, set())
    return _agreed(found, scope) if len({f for f, _ in found}) > 1 else None


def _agreed(found: set[tuple[str, str]], scope: CxxScope) -> CxxType:
    """One type for a call that may run any of these (full text, base text).

    Their type when they agree; a builtin value when all are builtin values
    (`float SQRT(float)`, `double SQRT(double)`: the operators on it are the
    language's either way); otherwise unknown, so its operators stay calls.
    """
    if len({full for full, _ in found}) == 1:
        return classify(next(iter(found))[1], scope)
    kinds = [classify(full, scope) for full, _ in found]
    if kinds and all(k.builtin and not k.pointer for k in kinds):
        return BUILTIN
    return UNKNOWN


def record_return(scope: CxxScope, name: str, member: Node, base: str) -> None:
    """Keep a definition's return type with those of its other definitions."""
    scope.full_returns.setdefault(name, set()).add((full_return(member), base))
    scope.returns[name] = base
