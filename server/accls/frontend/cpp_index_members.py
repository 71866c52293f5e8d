"""Accessor subscripts over the object's scalar members: `m_v[(size_t)i * m_ny + j]`.

A grid class's `double &operator()(int i, int j)` reaches the element at a
linearised offset whose row length is a data member. Such a member is a scalar
of the object the call names (`g.m_ny`), read by the call: it is bound through
that object like the parameters are bound to the arguments. A subscript made of
parameters, such members, integer literals, `+ - *`, parentheses and casts to an
integer type is a plain index; the casts are dropped from its text, since the
dependence test reads subscripts as whole numbers.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from accls.frontend.cpp_types import CxxScope, classify
from accls.frontend.exprs import node_text, strip_parens

__all__ = ["index_source", "plain_index", "scalar_members"]

_ARITH = frozenset({"+", "-", "*"})
_FLOATING = frozenset({"float", "double", "long double"})
# As `to_poly` reads casts: a narrow type wraps the value.
_NARROW = re.compile(r"\b(?:char|short|bool|_Bool|u?int(?:8|16)_t)\b")
_DEPTH = 8


def scalar_members(
    fields: dict[str, str], scope: CxxScope, shared: frozenset[str]
) -> set[str]:
    """The data members holding one number of the object (not static, no reference)."""
    out = set()
    for name, text in fields.items():
        kind = classify(text, scope)
        if name not in shared and "&" not in text and kind.builtin and not kind.pointer:
            out.add(name)
    return out


def _integer_cast(node: Node, scope: CxxScope) -> Node | None:
    """The operand of a cast to an integer type (`(size_t)i`), else None."""
    kind = node.child_by_field_name("type")
    value = node.child_by_field_name("value")
    if kind is None or value is None:
        return None
    text = " ".join(node_text(kind).replace("const", " ").split())
    found = classify(text, scope)
    if not found.builtin or found.pointer or text in _FLOATING or "*" in text:
        return None
    spelled = f"{text} {scope.aliases.get(text, '')}"
    if _NARROW.search(spelled) or any(f in spelled for f in _FLOATING):
        return None  # `(unsigned char)i` wraps: not the value of `i`
    return value


def plain_index(node: Node, scope: CxxScope, depth: int = 0) -> bool:
    """Names, integer literals, `+ - *`, parentheses and integer casts only."""
    node = strip_parens(node)
    if depth > _DEPTH:
        return False
    if node.type in ("identifier", "number_literal"):
        return True
    if node.type == "cast_expression":
        value = _integer_cast(node, scope)
        return value is not None and plain_index(value, scope, depth + 1)
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        return (
            op is not None
            and node_text(op) in _ARITH
            and left is not None
            and right is not None
            and plain_index(left, scope, depth + 1)
            and plain_index(right, scope, depth + 1)
        )
    return False


def index_source(node: Node) -> str:
    """A plain index's text, with its casts left out (`(size_t)i * n` is `(i) * n`)."""
    if not _has_cast(node):
        return " ".join(node_text(node).split())
    return _uncast(node)


def _has_cast(node: Node) -> bool:
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "cast_expression":
            return True
        stack.extend(cur.named_children)
    return False


def _uncast(node: Node) -> str:
    node = strip_parens(node)
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        return f"({_uncast(value)})" if value is not None else node_text(node)
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is not None and left is not None and right is not None:
            return _grouped(left, _uncast(left)) + (
                f" {node_text(op)} " + _grouped(right, _uncast(right))
            )
    return " ".join(node_text(node).split())


def _grouped(node: Node, text: str) -> str:
    """`text` parenthesised unless its node is a name, a number or a cast."""
    inner = strip_parens(node)
    if inner.type in ("identifier", "number_literal", "cast_expression"):
        return text
    return f"({text})"
