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

from accls.frontend.cpp_destructors import destructors, dying_object
from accls.frontend.cpp_products import product_factor
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
from accls.frontend.exprs import node_text, strip_parens
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

# Methods returning an iterator or pointer to a container's first element.
_FIRST_ELEMENT = frozenset({"begin", "cbegin", "data"})

__all__ = ["CppConstructors", "constructor_arguments", "cpp_var"]

_FRESH = frozenset({"std::vector", "std::array", "std::valarray"})


def constructor_arguments(
    declarator: Node, is_variable: Callable[[str], bool]
) -> tuple[Node, tuple[Node, ...]] | None:
    """The name and arguments of `T x(a, b)` parsed as a function declarator.

    None unless each parameter is a lone name that `is_variable` accepts, or
    such a name subscripted (`T x(a[i])`, read as a parameter `a` of an array
    type) or times another (`T x(a * b)`, a parameter `b` pointing to an `a`);
    `Foo f();` and `Foo f(int)` declare functions. A lone name's node is
    its name, a subscripted one's the whole parameter.
    """
    if declarator.type != "function_declarator":
        return None
    name = declarator.child_by_field_name("declarator")
    params = declarator.child_by_field_name("parameters")
    if name is None or name.type != "identifier" or params is None:
        return None
    args: list[Node] = []
    named = False  # some parameter is a variable: no function is declared
    for param in params.named_children:
        kind = param.child_by_field_name("type")
        if temporary_argument(param, is_variable) is not None:
            args.append(param)  # `std::vector<double>(nc)`: a temporary
            continue
        named = True
        if (
            param.type != "parameter_declaration"
            or param.named_child_count > 2
            or kind is None
            or kind.type != "type_identifier"
            or not is_variable(node_text(kind))
        ):
            return None
        extra = param.child_by_field_name("declarator")
        factor = product_factor(extra, is_variable)
        if extra is not None and not element_sizes(extra) and factor is None:
            return None
        args.append(kind if extra is None else param)
    return (name, tuple(args)) if args and named else None


def temporary_argument(
    param: Node, is_variable: Callable[[str], bool]
) -> tuple[Node, ...] | None:
    """The names `T(a, b)` reads, for a parameter that is that temporary, else None.

    `rows(nr, std::vector<double>(nc))` parses as a function whose second
    parameter is a function type; beside a variable `nr` it is a vector built
    from `nc`. Only a standard container is taken: its constructor does nothing
    the walk must see.
    """
    kind = param.child_by_field_name("type")
    extra = param.child_by_field_name("declarator")
    inner = extra.child_by_field_name("parameters") if extra is not None else None
    if (
        param.type != "parameter_declaration"
        or kind is None
        or extra is None
        or extra.type != "abstract_function_declarator"
        or inner is None
        or extra.named_child_count != 1
        or not node_text(kind).replace(" ", "").startswith("std::vector<")
    ):
        return None
    names: list[Node] = []
    for arg in inner.named_children:
        base = arg.child_by_field_name("type")
        if (
            arg.type != "parameter_declaration"
            or arg.named_child_count != 1
            or base is None
            or base.type != "type_identifier"
            or not is_variable(node_text(base))
        ):
            return None
        names.append(base)
    return tuple(names)


def element_sizes(declarator: Node) -> tuple[Node, ...]:
    """The indices of `[i][j]` read as an abstract array declarator; () if not one."""
    sizes: list[Node] = []
    node: Node | None = declarator
    while node is not None and node.type == "abstract_array_declarator":
        size = node.child_by_field_name("size")
        if size is None:
            return ()
        sizes.append(size)
        node = node.child_by_field_name("declarator")
    return tuple(reversed(sizes)) if node is None else ()


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

    def _record_call(
        self, node: Node, name: str, args: tuple[Node, ...], this: str | None = None
    ) -> None:
        """A call the C++ walk names (`std::stream::operator>>`), args as text.

        `this`, the object a constructor builds, comes first like a method's
        object: the new variable's name, or NEW_OBJECT for a temporary.
        """
        texts = tuple(self._argument_text(a) for a in args)
        if this is not None:
            texts = (this, *texts)
        self.call_refs.append(len(self.refs))
        self.calls.append(
            (Call(name, self._span(node), texts), tuple(r.id for r in self._loops))
        )
        if name in EXIT_CALLS:  # `std::exit(1)`: the C walk knows only `exit`
            self._exit(ExitKind.EXIT, node)

    def _argument_text(self, arg: Node) -> str:
        """An argument as text; `v.begin()` of a container is `v`, its first element.

        The analysis reads `v` as the pointer to the container's elements (and
        `rows[r]` as row `r` of a table of rows), not a method call's result.
        """
        inner = strip_parens(arg)
        fn = inner.child_by_field_name("function")
        args = inner.child_by_field_name("arguments")
        obj = fn.child_by_field_name("argument") if fn is not None else None
        method = fn.child_by_field_name("field") if fn is not None else None
        if (
            inner.type == "call_expression"
            and fn is not None
            and fn.type == "field_expression"
            and obj is not None
            and method is not None
            and node_text(method) in _FIRST_ELEMENT
            and args is not None
            and args.named_child_count == 0
            and not any(c.type == "->" for c in fn.children if not c.is_named)
            and self.type_of(obj).kind is TypeKind.CONTAINER
            and not self.type_of(obj).pointer
        ):
            return " ".join(node_text(obj).split())
        return " ".join(node_text(arg).split())

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
            built = temporary_argument(arg, self._variable)
            if built is not None:
                for size in built:
                    self.identifier(size, AccessKind.READ)
            elif arg.type == "parameter_declaration":
                self._element_argument(arg)
            else:
                self.identifier(arg, AccessKind.READ)
        text = declarator_type(node.child_by_field_name("type"), name)
        kind = classify(text, self.scope)
        self.env[var.name] = kind
        self.aliases.pop(var.name, None)
        self.decls.append(
            cpp_var(replace(var, scope_end=self._scope_end), kind, False, self.scope)
        )
        cls = kind.name.rsplit("::", 1)[-1]
        if kind.kind is TypeKind.CLASS and self._constructs(kind, None):
            self._record_call(declarator, f"{kind.name}::{cls}", args, var.name)
        this = dying_object(kind, var.name)
        for dtor in destructors(text, self.scope):  # it dies at its scope's end
            self._record_call(declarator, dtor, (), this)
        self._ref(name, var.name, AccessKind.WRITE)

    def _element_argument(self, param: Node) -> None:
        """`a[i]` of `T x(a[i])`, read like the subscript it is; `a * b` reads both."""
        base = param.child_by_field_name("type")
        extra = param.child_by_field_name("declarator")
        if base is None or extra is None:
            return
        factor = product_factor(extra, self._variable)
        if factor is not None:  # `T x(a * b)`: a product of two variables
            self.identifier(base, AccessKind.READ)
            self.identifier(factor, AccessKind.READ)
            return
        sizes = element_sizes(extra)
        for size in sizes:
            self.expr(size, 1)
        name = node_text(base)
        kind = self.variable_type(name)
        if kind is not None and (kind.pointer or kind.kind is TypeKind.CONTAINER):
            subscripts = tuple(self._subscript(size) for size in sizes)
            self._ref(param, name, AccessKind.READ, subscripts=subscripts)
        else:
            self._opaque()  # `operator[]` of a class: a call the walk cannot name

    def _constructs(self, kind: CxxType, value: Node | None) -> bool:
        """Whether declaring an object of this class runs a constructor unread here."""
        info = self.scope.classes.get(kind.name.rsplit("::", 1)[-1])
        if info is None:
            return value is None or value.type in ("argument_list", "initializer_list")
        if info.plain_constructors:
            return False  # it only stores its arguments in the new object
        return kind.name.rsplit("::", 1)[-1] in info.methods

    def _construct_declared(
        self, declarator: Node, kind: CxxType, value: Node | None, name: str
    ) -> None:
        """`T x;`, `T x(a)`, `T x{a}`, `T x = v`: `T::T` on `x` with the arguments.

        `T x = T(a)` runs one constructor, the temporary's (its copy is elided),
        which the walk of the value records; `T x = v` of another value converts
        or copies it, `v` the one argument.
        """
        cls = kind.name.rsplit("::", 1)[-1]
        args: tuple[Node, ...] = ()
        if value is not None and value.type in ("argument_list", "initializer_list"):
            args = tuple(a for a in value.named_children if a.type != "comment")
        elif value is not None:
            if self._temporary_of(value, cls):
                return
            args = (value,)
        self._record_call(declarator, f"{kind.name}::{cls}", args, name)

    def _temporary_of(self, value: Node, cls: str) -> bool:
        """Whether `value` is `cls(..)` or `cls{..}`, a new object of the class."""
        if value.type == "call_expression":
            fn = value.child_by_field_name("function")
        elif value.type == "compound_literal_expression":
            fn = value.child_by_field_name("type")
        else:
            return False
        return (
            fn is not None
            and fn.type in ("identifier", "type_identifier")
            and (node_text(fn) == cls)
        )
