"""The element constructors a C++ container or array runs: `std::vector<E> v(n)`.

Building `n` elements runs `E`'s constructor on each, and a user constructor
may write memory besides its object (a global counter, a pointer argument):
`std::vector<E> v(n)` and `v.resize(n)` run `E()`, `v(n, x)`, `v.resize(n, x)`
and `v.assign(n, x)` copy `x` into each element, `v.push_back(x)` and
`v.insert(p, x)` copy `x` into a new one (and a growing vector its old ones),
`E a[4]` and `std::array<E, 4> a` default-construct theirs. Each is recorded
as a call of `E::E` on a new object, like `E e;`, so its summary says what it
writes. A copy runs the class's own constructor only when it declares one taking one
argument (the implicit copy constructor copies the members and does nothing
else).
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_objects import CppConstructors
from accls.frontend.cpp_types import (
    UNKNOWN,
    CxxType,
    TypeKind,
    classify,
    declarator_type,
)
from accls.frontend.exprs import node_text
from accls.frontend.model import NEW_OBJECT

__all__ = ["COUNTED_METHODS", "CppElements"]

# Container methods whose first argument is a count of elements they build
# (`v.resize(n)`, `v.assign(n, x)`), the value to copy coming after it.
COUNTED_METHODS = frozenset({"resize", "assign"})
# Container methods that copy (or move) their value arguments into new
# elements, and how many arguments (a position) come before the values.
_COPYING = {"push_back": 0, "push_front": 0, "insert": 1}
# Methods that may grow a vector: its elements are then copied (or moved)
# into new storage, one constructor call each.
_GROWING = frozenset(
    {"push_back", "emplace_back", "insert", "emplace", "resize", "reserve"}
)
_SEQUENCES = frozenset({"std::vector", "std::valarray"})
_BUILDERS = ("argument_list", "initializer_list")


class CppElements(CppConstructors):
    """The calls of the constructors that build a container's or array's elements."""

    def _element_constructor(self, element: str, count: int) -> str | None:
        """`E::E` when building an `E` from `count` arguments runs user code."""
        kind = classify(element, self.scope)
        if kind.kind is not TypeKind.CLASS or kind.name.startswith("std::"):
            return None  # a builtin, or a standard class: no effect of the file's
        cls = kind.name.rsplit("::", 1)[-1]
        info = self.scope.classes.get(cls)
        if info is None:
            return f"{kind.name}::{cls}"  # a class defined elsewhere: its summary
        if info.plain_constructors or not info.constructors:
            return None
        if count == 1:
            declared = info.signatures.get(cls)
            if declared and not any(1 in counts for counts, _, _ in declared):
                return None  # the implicit copy constructor: members copied
        return f"{kind.name}::{cls}"

    def _elements_built(self, node: Node, element: str, args: tuple[Node, ...]) -> None:
        """One element built from `args` (`E()` or `E(x)`): its constructor's call."""
        name = self._element_constructor(element, len(args))
        if name is not None:
            self._record_call(node, name, args, NEW_OBJECT)

    def _argument_type(self, arg: Node) -> CxxType:
        """An argument's type; the vexing parse's `v(n)` reads `n` as a type name."""
        if arg.type == "type_identifier":
            return self.variable_type(node_text(arg)) or UNKNOWN
        return self.type_of(arg)

    def _counted(
        self, node: Node, element: str, args: tuple[Node, ...], listed: bool
    ) -> None:
        """`(n)` builds `n` elements `E()`, `(n, x)` copies of `x`; others copy each."""
        if not args:
            return  # an empty container: no element yet
        first = self._argument_type(args[0])
        if not listed and len(args) <= 2 and first.builtin and not first.pointer:
            self._elements_built(node, element, args[1:])
            return
        for arg in args:  # a copy, a range or a list: elements copied from each
            self._elements_built(node, element, (arg,))

    def _elements_declared(
        self, declarator: Node, text: str, value: Node | None
    ) -> None:
        """`std::vector<E> v(n)`, `v(n, x)`, `std::array<E, 4> a`, `E a[4]`.

        `text` is the declared type, `value` the constructor's arguments or the
        initializer list (None for none; another value is an assignment's).
        """
        if value is not None and value.type not in _BUILDERS:
            return
        args = () if value is None else _items(value)
        kind = classify(text, self.scope)
        if kind.kind is TypeKind.CONTAINER and kind.name in _SEQUENCES:
            listed = value is not None and value.type == "initializer_list"
            self._counted(declarator, kind.element, args, listed)
        elif kind.name == "std::array" or text.rstrip().endswith("]"):
            if "*" in kind.element or "&" in kind.element:
                return  # an array of pointers: no object built
            # Elements the initializer does not give are default-constructed.
            self._elements_built(declarator, kind.element, ())
            for arg in args:
                self._elements_built(declarator, kind.element, (arg,))

    def _constructed(
        self, node: Node, declarator: Node, name: Node, args: tuple[Node, ...]
    ) -> None:
        """`std::vector<E> v(n)` read as a function: its elements' constructors too."""
        super()._constructed(node, declarator, name, args)
        kind = classify(
            declarator_type(node.child_by_field_name("type"), name), self.scope
        )
        if kind.kind is TypeKind.CONTAINER and kind.name in _SEQUENCES:
            self._counted(declarator, kind.element, args, False)

    def _elements_counted(
        self, node: Node, owner: CxxType, method: str, args: tuple[Node, ...]
    ) -> None:
        """`v.resize(n)`, `v.resize(n, x)`, `v.assign(n, x)`: the new elements."""
        if owner.kind is TypeKind.CONTAINER and method in COUNTED_METHODS:
            self._counted(node, owner.element, args, False)

    def _elements_copied(
        self, node: Node, owner: CxxType, method: str, obj: Node, args: tuple[Node, ...]
    ) -> None:
        """`v.push_back(x)`, `v.insert(p, x)`: `E(x)` on the new element.

        A vector that grows copies its old elements too (`E(v[k])`), whatever
        built the new one (`emplace_back(a, b)`).
        """
        if owner.kind is not TypeKind.CONTAINER:
            return
        values = args[_COPYING[method] :] if method in _COPYING else ()
        if len(values) == 1:
            self._elements_built(node, owner.element, values)
        elif values:  # `insert(p, n, x)`, `insert(p, first, last)`
            self._counted(node, owner.element, values, False)
        if owner.name in _SEQUENCES and method in _GROWING:
            self._elements_built(node, owner.element, (obj,))


def _items(value: Node) -> tuple[Node, ...]:
    return tuple(a for a in value.named_children if a.type != "comment")
