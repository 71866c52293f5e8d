"""A container's element methods: `v.at(i)`, `v.front()`, `v.back()` are elements.

`v.at(i)` is the element i of v, like `v[i]` (out of range it throws, an exit);
`v.front()` is `v[0]` and `v.back()` is `v[v.size() - 1]`, an element at a
place the dependence test does not know (any element of v), read or written
as the call is used. None of them is a call with effects of its own.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_methods import cpp_expression
from accls.frontend.cpp_row_references import CppRowReferences
from accls.frontend.cpp_types import TypeKind
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.model import AccessKind, ExitKind, Subscript

__all__ = ["ELEMENT_METHODS", "CppElementAccess"]

_ENDS = frozenset({"front", "back"})
ELEMENT_METHODS = frozenset({"at", "operator[]"}) | _ENDS
"""A container's methods that name one of its elements."""


class CppElementAccess(CppRowReferences):
    """The C++ walk's element methods of containers (see the module's doc)."""

    def _element_call(self, node: Node) -> bool:
        fn = node.child_by_field_name("function")
        fn = strip_parens(fn) if fn is not None else None
        if fn is None or fn.type != "field_expression":
            return False
        obj = fn.child_by_field_name("argument")
        method = fn.child_by_field_name("field")
        return (
            obj is not None
            and method is not None
            and node_text(method) in ELEMENT_METHODS
            and self.object_type(obj, node_text(fn)).kind is TypeKind.CONTAINER
        )

    def _element_access(self, node: Node, kind: AccessKind, depth: int) -> None:
        """`v.at(i)`, `v.front()`, `v.back()`: an element of v, like `v[i]`."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        obj = fn.child_by_field_name("argument") if fn is not None else None
        method = fn.child_by_field_name("field") if fn is not None else None
        if obj is None or method is None:
            return
        name = "".join(node_text(strip_parens(obj)).split())
        if node_text(method) in _ENDS:
            self._end_element(node, obj, name, node_text(method), kind, depth)
            return
        index = (
            args.named_children[0]
            if args is not None and args.named_child_count
            else None
        )
        if index is None:
            return
        if node_text(method) == "at":
            # Out of range it throws `std::out_of_range`, which must not leave
            # a parallel region (std::terminate); in order a caller may catch it.
            self._exit(ExitKind.EXIT, node)
        self.expr(index, depth + 1)
        self._ref(node, name, kind, subscripts=(self._subscript(index),))

    def _end_element(
        self, node: Node, obj: Node, name: str, end: str, kind: AccessKind, depth: int
    ) -> None:
        """`v.front()` is `v[0]`; `v.back()` an element the test does not place."""
        inner = strip_parens(obj)
        member = inner.type == "field_expression"
        if inner.type != "identifier" and not member:
            self.expr(inner, depth + 1)  # `f().front()`: what yields the container
        zero = cpp_expression("0") if end == "front" else None
        subscripts: tuple[Subscript, ...] = (
            (self._subscript(zero),)
            if zero is not None
            else (Subscript(f"{name}.size() - 1", None),)
        )
        if inner.type == "identifier":
            name, subscripts = self.row_path(name, subscripts)
        self._ref(node, name, kind, subscripts=subscripts, member=member)

    def _element_base(self, node: Node) -> bool:
        """True when `node`'s `[]` is the language's or a container's element access."""
        base = node.child_by_field_name("argument")
        if base is None:
            return False
        base_type = self.type_of(base)
        return base_type.pointer or base_type.kind is TypeKind.CONTAINER
