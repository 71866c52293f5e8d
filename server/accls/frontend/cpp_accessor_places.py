"""What an accessor method reaches: `return m;`, `return m[e];`, `return m[e][f];`.

The place is a data member, or an element of one whose subscripts are the
method's parameters (see cpp_methods). In a class template the element's type
may be a type parameter (`T &operator[](std::size_t i) { return data[i]; }`
over a `std::vector<T> data`): the accessor names the parameter, and a call
reaches the element only on an instance that binds it to an arithmetic type
(cpp_decls); on any other the element is an object, whose operators are calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from accls.frontend.cpp_index_members import index_source, plain_index, scalar_members
from accls.frontend.cpp_types import CxxScope, CxxType, TypeKind, classify
from accls.frontend.exprs import node_text, strip_parens

__all__ = ["ATOMS", "Accessor", "accessor_place", "simple_argument"]

_WORD = re.compile(r"[A-Za-z_]\w*")
_ARITH = frozenset({"+", "-", "*"})
ATOMS = frozenset({"identifier", "number_literal"})
"""The node types of a name or a number: an argument substituted as written."""


@dataclass(frozen=True, slots=True)
class Accessor:
    """What a call of an accessor method reaches: a member, or one of its elements."""

    member: str  # the data member's name
    params: tuple[str, ...]  # the parameters, in order
    # The subscripts' texts over the parameters, outermost first; None: the member.
    index: tuple[str, ...] | None
    reference: bool  # returns a reference: the call may be assigned to
    # Any other `return e;` over parameters, members and literals: its text, read
    # in place of the call (`m_start[i+1] - m_start[i]`); the fields it names, or
    # those the subscripts of an element name (`m_v[i * m_ny + j]`).
    expression: str | None = None
    fields: frozenset[str] = frozenset()
    # The class template's type parameter that is the place's type, if it is one:
    # the place is a scalar only on an instance binding it to one.
    element_param: str = ""


def simple_argument(node: Node, depth: int = 0) -> bool:
    """An argument made of names, integer literals, `+ - *` and parentheses only."""
    node = strip_parens(node)
    if depth > 8:
        return False
    if node.type in ATOMS:
        return True
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        return (
            op is not None
            and node_text(op) in _ARITH
            and left is not None
            and right is not None
            and simple_argument(left, depth + 1)
            and simple_argument(right, depth + 1)
        )
    return False


def _index_node(node: Node) -> Node | None:
    index = node.child_by_field_name("index")
    if index is not None:
        return index
    indices = node.child_by_field_name("indices")
    if indices is None or indices.named_child_count != 1:
        return None
    return indices.named_children[0]


def _scalar(
    kind: CxxType, text: str, generic: tuple[str, ...], pointer: bool = False
) -> str | None:
    """How a place of type `kind` (written `text`) is a scalar, or None.

    "" when it is one (with `pointer`, a pointer counts), the type parameter
    `text` names when it is one of `generic`.
    """
    if kind.builtin and (pointer or not kind.pointer):
        return ""
    plain = " ".join(text.replace("const", " ").split())
    if kind.kind is TypeKind.UNKNOWN and plain and plain in generic:
        return plain
    return None


def accessor_place(
    value: Node,
    params: tuple[str, ...],
    fields: dict[str, str],
    scope: CxxScope,
    reference: bool,
    generic: tuple[str, ...] = (),
    shared: frozenset[str] = frozenset(),
) -> Accessor | None:
    """`return m;`, `return m[e];` or `return m[e][f];`: the member or element.

    `generic` are the class template's type parameters, if it is one; `shared`
    its static members. A subscript may read the object's own scalar members
    (`m_v[i * m_ny + j]`), each bound through the object a call names.
    """
    if value.type == "identifier" and node_text(value) in fields:
        member = node_text(value)
        kind = classify(fields[member], scope)
        param = _scalar(kind, fields[member], generic, pointer=True)
        if param is None:
            return None
        return Accessor(member, params, None, reference, element_param=param)
    indices: list[Node] = []
    base: Node | None = value
    while base is not None and base.type == "subscript_expression" and len(indices) < 4:
        index = _index_node(base)
        if index is None:
            return None
        indices.insert(0, index)
        base = base.child_by_field_name("argument")
    if base is None or not indices or base.type != "identifier":
        return None
    member = node_text(base)
    if member not in fields:
        return None
    kind, element = classify(fields[member], scope), fields[member]
    counts = scalar_members(fields, scope, shared) - set(params)
    used: set[str] = set()
    for index in indices:
        holds = kind.kind is TypeKind.CONTAINER or (kind.builtin and kind.pointer)
        if not holds or not plain_index(index, scope):
            return None
        names = set(_WORD.findall(index_source(index)))
        if not names <= set(params) | scope.enums | counts:
            return None  # a subscript reads a global or an object: not a plain element
        used |= names & counts
        element = kind.element
        kind = classify(element, scope)
    param = _scalar(kind, element, generic)
    if param is None:
        return None  # an element that is itself a row or an object
    texts = tuple(index_source(index) for index in indices)
    return Accessor(
        member, params, texts, reference, fields=frozenset(used), element_param=param
    )
