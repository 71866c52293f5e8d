"""A reference to a row: `std::vector<double> &row = rows[r];` names `rows[r]`.

A C++ reference is bound once and never re-bound (`row = other` assigns the
row's contents), so while the names of its place keep their values, each use
of `row` is a use of `rows[r]`: `row[j]` is `rows[r][j]`, `row.size()` is
`rows[r].size()`, as a range-for's row is (`CppRanges.range_variable`). Read
so, the dependence test sees the row the iteration owns instead of a pointer
the loop re-points. Only a row of a container that owns its rows
(`std::vector<std::vector<T>>`, not a table of pointers or of spans) is one.
Where a name of the place may change after the binding (`r` stored to,
incremented, passed to a call or its address taken), the place's text would
name another row: the reference stays a pointer that may alias the container.
A row passed to a call (this one, or a range-for's) is passed as its place, so
the call's writes through it are the row's (`zero(row, n)` writes `m[r]` only).
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_decls import is_reference
from accls.frontend.cpp_ranges import CppRanges
from accls.frontend.cpp_types import (
    OWNING_CONTAINERS,
    CxxType,
    TypeKind,
    declared_name,
)
from accls.frontend.expr_nodes import cpp_index
from accls.frontend.exprs import node_text, strip_parens

__all__ = ["CppRowReferences"]

# A store (`=`, `++`) or an address taken (`&r`): the name may change.
_STORES = frozenset(
    {"assignment_expression", "update_expression", "pointer_expression"}
)


class CppRowReferences(CppRanges):
    """The C++ walk's references bound to a row (see the module's doc)."""

    def _declaration(self, node: Node, depth: int) -> None:
        declarators = node.children_by_field_name("declarator")
        if len(declarators) == 1 and self._row_reference(node, declarators[0]):
            return
        for declarator in declarators:  # a new variable of a row's name hides it
            target = declared_name(declarator)
            if target is not None:
                self.rows.pop(node_text(target), None)
                self.elements.pop(node_text(target), None)
        super()._declaration(node, depth)

    def _argument_text(self, arg: Node) -> str:
        """A row passed to a call is its place: `fill(row.begin(), ..)` fills `m[r]`."""
        return self._row_text(super()._argument_text(arg))

    def argument_place(self, arg: Node) -> str:
        """`zero(row, n)` of a row passes `m[r]`."""
        return self._row_text(super().argument_place(arg))

    def _row_text(self, text: str) -> str:
        if text not in self.rows:
            return text
        outer, subs = self.rows[text]
        return outer + "".join(f"[{sub.text}]" for sub in subs)

    def _row_reference(self, declaration: Node, declarator: Node) -> bool:
        """`T &row = rows[r]`: record `row` as the row `rows[r]`, if it is one."""
        name = declarator.child_by_field_name("declarator")
        value = declarator.child_by_field_name("value")
        if (
            declarator.type != "init_declarator"
            or not is_reference(declarator)
            or name is None
            or value is None
        ):
            return False
        while name.type == "reference_declarator" and name.named_children:
            name = name.named_children[-1]
        place = strip_parens(value)
        base = place.child_by_field_name("argument")
        index = cpp_index(place) if place.type == "subscript_expression" else None
        if (
            name.type != "identifier"
            or _hides(declaration, node_text(name))
            or base is None
            or index is None
            or strip_parens(base).type != "identifier"
            or not _owned_row(self.type_of(base), self.type_of(place))
            or not _kept(declaration, place)
        ):
            return False
        self.expr(index, 1)  # the index is read once, where the row is bound
        table = node_text(strip_parens(base))
        outer, prefix = self.rows.get(table, (table, ()))
        self.rows[node_text(name)] = (outer, (*prefix, self._subscript(index)))
        self.env[node_text(name)] = self.type_of(place)
        self.aliases.pop(node_text(name), None)
        return True


def _owned_row(table: CxxType, row: CxxType) -> bool:
    """Whether `row` is an element of `table` with storage of its own."""
    return all(
        kind.kind is TypeKind.CONTAINER and kind.name in OWNING_CONTAINERS
        for kind in (table, row)
    )


def _kept(declaration: Node, place: Node) -> bool:
    """Whether no name of the place may change from the binding to its block's end."""
    names = _names(place)
    block = declaration.parent
    if block is None or block.type != "compound_statement" or not names:
        return False
    if _may_change(place, names):
        return False  # `rows[r++]`
    after = False
    for stmt in block.named_children:
        if stmt == declaration:
            after = True
        elif after and _may_change(stmt, names):
            return False
    return after


def _hides(declaration: Node, name: str) -> bool:
    """Whether a declaration of `name` is in scope where `declaration` is.

    After the reference's block the name would be the hidden variable again,
    which the walk, keeping the row for the name, would misread.
    """
    child, parent = declaration, declaration.parent
    while parent is not None:
        for sibling in parent.children:
            if sibling == child:
                break
            if _declares(sibling, name):
                return True
        child, parent = parent, parent.parent
    return False


_DECLARING = frozenset(
    {"declaration", "parameter_declaration", "optional_parameter_declaration"}
)
_CLOSED = frozenset({"compound_statement", "lambda_expression"})


def _declares(node: Node, name: str) -> bool:
    """Whether `node` declares `name` in the scope it opens or shares."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in _DECLARING or cur.type == "for_range_loop":
            for declarator in cur.children_by_field_name("declarator"):
                target = declared_name(declarator)
                if target is not None and node_text(target) == name:
                    return True
        stack.extend(c for c in cur.named_children if c.type not in _CLOSED)
    return False


def _names(place: Node) -> frozenset[str]:
    """Every identifier the place's text reads (its container and its indexes)."""
    found: set[str] = set()
    stack = [place]
    while stack:
        cur = stack.pop()
        if cur.type == "identifier":
            found.add(node_text(cur))
        elif cur.type == "call_expression":
            return frozenset()  # a call may give another place each time
        stack.extend(cur.named_children)
    return frozenset(found)


def _may_change(stmt: Node, names: frozenset[str]) -> bool:
    """Whether a statement may store to one of the names (or let a callee do so)."""
    stack = [stmt]
    while stack:
        cur = stack.pop()
        if cur.type == "argument_list" and any(
            _root(arg) in names for arg in cur.named_children
        ):
            return True  # a name passed to a call may bind a reference parameter
        target = cur.child_by_field_name(
            "left" if cur.type == "assignment_expression" else "argument"
        )
        stores = cur.type in _STORES
        if stores and target is not None and _root(target) in names:
            return True
        stack.extend(cur.named_children)
    return False


def _root(node: Node) -> str:
    """The variable an lvalue or argument starts from (`r` of `r`, `a` of `a.b`)."""
    cur = strip_parens(node)
    while cur.type in ("field_expression", "subscript_expression"):
        inner = cur.child_by_field_name("argument")
        if inner is None:
            break
        cur = strip_parens(inner)
    return node_text(cur) if cur.type == "identifier" else ""
