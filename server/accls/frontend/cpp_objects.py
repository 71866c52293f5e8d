"""C++ objects in a function walk: containers, constructor calls, the vexing parse.

A container is a pointer to its elements (`cpp_var`). The calls the C++ walk
names itself (constructors, destructors, operators) and the uses of names
(an alias is its place, a reference is read through) are recorded here. And
C++'s most vexing parse: `std::vector<double> x(n);` read as a function `x`.
tree-sitter reads a declaration in a body whose arguments are plain names as
the declaration of a function taking parameters of those types. When every
such "type" is a variable in scope and no type, the declaration defines a
variable built by its constructor from those variables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.cpp_types import (
    UNKNOWN,
    CxxScope,
    CxxType,
    TypeKind,
    classify,
    declarator_type,
)
from accls.frontend.cpp_typing import CppTyping
from accls.frontend.decls import constructed_var
from accls.frontend.exprs import node_text
from accls.frontend.model import (
    EXIT_CALLS,
    AccessKind,
    Call,
    ExitKind,
    RedOp,
    Subscript,
    Var,
)
from accls.frontend.poly import Poly

__all__ = ["CppConstructors", "constructor_arguments", "cpp_var"]

_FRESH = frozenset({"std::vector", "std::array", "std::valarray"})


def constructor_arguments(
    declarator: Node, is_variable: Callable[[str], bool]
) -> tuple[Node, tuple[Node, ...]] | None:
    """The name and arguments of `T x(a, b)` parsed as a function declarator.

    None unless each parameter is a lone name that `is_variable` accepts
    (`Foo f();` and `Foo f(int)` declare functions).
    """
    if declarator.type != "function_declarator":
        return None
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if name is None or name.type != "identifier" or params is None:
        return None
    args: list[Node] = []
    for param in params.named_children:
        kind = param.child_by_field_name("type")
        if (
            param.type != "parameter_declaration"
            or param.named_child_count != 1
            or kind is None
            or kind.type != "type_identifier"
            or not is_variable(node_text(kind))
        ):
            return None
        args.append(kind)
    return (name, tuple(args)) if args else None


def cpp_var(
    var: Var, kind: CxxType, reference: bool, scope: CxxScope | None = None
) -> Var:
    """A Var as the analysis reads it: a container is a pointer to its elements.

    A container of owning containers (`std::vector<std::vector<double>>`) is a
    table of rows, each an object of its own: rows of two elements never overlap.
    """
    if kind.kind is TypeKind.CONTAINER:
        fresh = var.scope == "local" and not reference and kind.name in _FRESH
        row = classify(kind.element, scope) if scope is not None else UNKNOWN
        cell = classify(row.element, scope) if scope is not None else UNKNOWN
        if (
            row.kind is TypeKind.CONTAINER
            and row.name in _FRESH
            and cell.builtin
            and not cell.pointer
        ):
            return replace(
                var,
                type=row.element,
                pointers=var.pointers + 2,
                fresh=fresh,
                fresh_rows=True,
            )
        return replace(
            var, type=kind.element or "int", pointers=var.pointers + 1, fresh=fresh
        )
    if reference and kind.builtin:
        return replace(var, pointers=var.pointers + 1)
    if reference and kind.kind is TypeKind.CLASS:
        # `D &d`: the object lies elsewhere, maybe where another name reaches.
        return replace(var, pointers=var.pointers + 1)
    return var


class CppConstructors(CppTyping):
    """The C++ walk's calls it names itself, and the objects constructors build."""

    def _record_call(self, node: Node, name: str, args: tuple[Node, ...]) -> None:
        """A call the C++ walk names (`std::stream::operator>>`), args as text."""
        texts = tuple(" ".join(node_text(a).split()) for a in args)
        self.call_refs.append(len(self.refs))
        self.calls.append(
            (Call(name, self._span(node), texts), tuple(r.id for r in self._loops))
        )
        if name in EXIT_CALLS:  # `std::exit(1)`: the C walk knows only `exit`
            self._exit(ExitKind.EXIT, node)

    def identifier(
        self, node: Node, kind: AccessKind, red: RedOp | None = None
    ) -> None:
        """A use of a name: an alias, a reference, a member or a plain variable."""
        name = node_text(node)
        if kind is AccessKind.READ:
            if self.object_macro(node, lambda body: self.expr(body, 1)):
                return
        elif self.object_macro(node, lambda body: self.lvalue(body, kind, red, 0)):
            return
        if name in self.aliases:
            target = self.aliases.pop(name)  # no alias of itself while it is read
            try:
                self.lvalue(target, kind, red, 0)
            finally:
                self.aliases[name] = target
        elif name in self.rows:
            range_name, subs = self.rows[name]
            self._ref(node, range_name, kind, subscripts=subs, reduction=red)
        elif name in self.elements:
            range_name, index = self.elements[name]
            sub = Subscript(index, Poly.sym(index)) if index else Subscript(name, None)
            self._ref(node, range_name, kind, subscripts=(sub,), reduction=red)
        elif name in self.references:
            self._ref(node, name, kind, reduction=red, deref=True)
        else:
            self._ref(node, name, kind, reduction=red)

    def _variable(self, name: str) -> bool:
        """A name in scope that is a variable, not a type."""
        scope = self.scope
        typed = (
            name in scope.classes
            or name in scope.aliases
            or name in scope.template_params
        )
        return not typed and self.variable_type(name) is not None

    def _constructed(
        self, node: Node, declarator: Node, name: Node, args: tuple[Node, ...]
    ) -> None:
        """`T x(a, b)`: the variable `x`, built by its constructor from `a`, `b`."""
        var = constructed_var(node, name, self.macros)
        if var is None:
            return
        for arg in args:
            self.identifier(arg, AccessKind.READ)
        kind = classify(
            declarator_type(node.child_by_field_name("type"), name), self.scope
        )
        self.env[var.name] = kind
        self.aliases.pop(var.name, None)
        self.decls.append(
            cpp_var(replace(var, scope_end=self._scope_end), kind, False, self.scope)
        )
        cls = kind.name.rsplit("::", 1)[-1]
        if kind.kind is TypeKind.CLASS and self._constructs(kind, None):
            self._record_call(declarator, f"{kind.name}::{cls}", args)
        info = self.scope.classes.get(cls)
        if kind.kind is TypeKind.CLASS and info and f"~{cls}" in info.methods:
            self._record_call(declarator, f"{kind.name}::~{cls}", ())
        self._ref(name, var.name, AccessKind.WRITE)

    def _constructs(self, kind: CxxType, value: Node | None) -> bool:
        """Whether declaring an object of this class runs a constructor unread here."""
        info = self.scope.classes.get(kind.name.rsplit("::", 1)[-1])
        if info is None:
            return value is None or value.type in ("argument_list", "initializer_list")
        if info.plain_constructors:
            return False  # it only stores its arguments in the new object
        return kind.name.rsplit("::", 1)[-1] in info.methods
