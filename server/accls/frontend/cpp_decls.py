"""C++ names in a function walk: their types, references, members and lambdas.

A reference declared from a place (`double &x = a[i]`) is that place: each use of
`x` is recorded as a use of `a[i]`. A scalar reference parameter is written
through, like a pointer. A class's data member used in a method is `this->m`.
A lambda is not walked where it is defined but where it is called, its
parameters bound to the arguments.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from accls.frontend.cpp_class_templates import instance_scalar
from accls.frontend.cpp_closures import captures_loop_scalars
from accls.frontend.cpp_destructors import destructors, dying_object
from accls.frontend.cpp_elements import CppElements
from accls.frontend.cpp_methods import (
    Accessor,
    cpp_expression,
    expansion_text,
    index_text,
    snippet,
)
from accls.frontend.cpp_objects import constructor_arguments, cpp_var
from accls.frontend.cpp_types import (
    UNKNOWN,
    CxxType,
    TypeKind,
    classify,
    declarator_type,
    declared_name,
)
from accls.frontend.decls import declared_vars
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.model import (
    AccessKind,
    Advance,
    RedOp,
    Subscript,
    Var,
)

__all__ = ["CppDeclarations", "cpp_var", "is_reference"]

_PLACES = frozenset({"identifier", "subscript_expression", "field_expression"})

_MAX_INLINE = 4
_PATH = re.compile(r"[A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*")


def is_reference(declarator: Node | None) -> bool:
    """True when a declarator declares a reference (`T &x`, `T &&x`)."""
    while declarator is not None:
        if declarator.type == "reference_declarator":
            return True
        declarator = declarator.child_by_field_name("declarator")
    return False


class CppDeclarations(CppElements):
    """The C walk, with the meanings of C++ names and declarations."""

    # ----- names -----------------------------------------------------------
    def _ref(
        self,
        node: Node,
        name: str,
        kind: AccessKind,
        *,
        subscripts: tuple[Subscript, ...] = (),
        reduction: RedOp | None = None,
        deref: bool = False,
        member: bool = False,
        advance: Advance | None = None,
        escapes: bool = False,
        field: str = "",
    ) -> None:
        """Every reference: a data member named bare in a method is `this->m`."""
        if name in self.members and name not in self.env and name not in self.params:
            name, member, advance = f"this->{name}", True, None
        head, dot, rest = name.partition(".")
        if dot and head in self.object_refs:
            name = f"{head}->{rest}"  # a reference to an object is a pointer to it
        super()._ref(
            node,
            name,
            kind,
            subscripts=subscripts,
            reduction=reduction,
            deref=deref,
            member=member,
            advance=advance,
            escapes=escapes,
            field=field,
        )

    def _advance(self, node: Node, target: Node, used: bool) -> Advance | None:
        target = strip_parens(target)
        if target.type == "identifier" and self._special(node_text(target)):
            return None
        return super()._advance(node, target, used)

    def _special(self, name: str) -> bool:
        return (
            name in self.aliases
            or name in self.elements
            or name in self.rows
            or name in self.references
            or (name in self.members and name not in self.env)
        )

    def _declaration(self, node: Node, depth: int) -> None:
        """A declaration: references become aliases, lambdas wait for their calls."""
        base = node.child_by_field_name("type")
        plain: list[Node] = []
        for declarator in node.children_by_field_name("declarator"):
            built = constructor_arguments(declarator, self._variable)
            if built is not None:
                self._constructed(node, declarator, *built)
                continue
            target = declared_name(declarator)
            if target is None:
                continue
            name = node_text(target)
            value = (
                declarator.child_by_field_name("value")
                if declarator.type == "init_declarator"
                else None
            )
            text = declarator_type(base, declarator)
            kind = classify(text, self.scope)
            if value is not None and kind.kind is TypeKind.UNKNOWN and "auto" in text:
                kind = self.type_of(value)
            reference = is_reference(declarator)
            if value is not None and value.type == "lambda_expression":
                self.lambdas[name] = value
                self.env[name] = CxxType(TypeKind.LAMBDA)
                self.decls.append(Var(name=name, type="<lambda>", scope="local"))
                continue
            if (
                reference
                and value is not None
                and strip_parens(value).type in _PLACES
                and not self._shared_variable(strip_parens(value))
                and self.type_of(value).builtin
                and not self.type_of(value).pointer
            ):
                # A scalar place: each use of the name is a use of the place. A
                # reference to a row or a container is a pointer that may alias it.
                self.aliases[name] = strip_parens(value)
                self.env.pop(name, None)
                continue
            self.env[name] = kind
            self.aliases.pop(name, None)
            self.object_refs.discard(name)
            if reference:
                self.references.add(name)
                if kind.kind is TypeKind.CLASS:
                    self.object_refs.add(name)
            plain.append(declarator)
            if kind.kind is TypeKind.CLASS and self._constructs(kind, value):
                self._construct_declared(declarator, kind, value, name)
            self._elements_declared(declarator, text, value)
            if not reference:  # it dies at the end of its scope: each iteration
                this = dying_object(kind, name)
                for dtor in destructors(text, self.scope):
                    self._record_call(declarator, dtor, (), this)
        if not plain:
            return
        first = len(self.decls)
        super()._declaration(node, depth)
        for k in range(first, len(self.decls)):
            var = self.decls[k]
            kind = self.env.get(var.name, UNKNOWN)
            self.decls[k] = cpp_var(var, kind, var.name in self.references, self.scope)

    def accessor_place(
        self, call: Node, kind: AccessKind, red: RedOp | None, depth: int
    ) -> bool:
        """`obj.fx(i)` of an accessor: a use of `obj.m_fx[i]`; False if not one."""
        fn = call.child_by_field_name("function")
        fn = strip_parens(fn) if fn is not None else None
        args_node = call.child_by_field_name("arguments")
        if fn is None or fn.type != "field_expression" or args_node is None:
            return False
        obj = fn.child_by_field_name("argument")
        method = fn.child_by_field_name("field")
        if obj is None or method is None:
            return False
        args = tuple(a for a in args_node.named_children if a.type != "comment")
        arrow = any(c.type == "->" for c in fn.children if not c.is_named)
        return self._accessor_use(
            call, obj, (node_text(method), args, arrow), kind, red, depth
        )

    def operator_place(
        self, node: Node, kind: AccessKind, red: RedOp | None, depth: int
    ) -> bool:
        """`obj[i]`, `obj(i, j)` of an accessor operator: its member's element."""
        if node.type == "subscript_expression":
            obj = node.child_by_field_name("argument")
            listed = node.child_by_field_name("indices")
            method = "operator[]"
        else:
            obj = node.child_by_field_name("function")
            listed = node.child_by_field_name("arguments")
            method = "operator()"
        if obj is None or listed is None or strip_parens(obj).type != "identifier":
            return False
        args = tuple(a for a in listed.named_children if a.type != "comment")
        return self._accessor_use(node, obj, (method, args, False), kind, red, depth)

    def _accessor_use(
        self,
        call: Node,
        obj: Node,
        method: tuple[str, tuple[Node, ...], bool],
        kind: AccessKind,
        red: RedOp | None,
        depth: int,
    ) -> bool:
        """A call of the accessor `name` of `obj` with `args` (through `->`)."""
        name, args, arrow = method
        owner = self.object_type(obj)
        info = self.scope.classes.get(owner.name.rsplit("::", 1)[-1])
        key = (name, len(args))
        accessor = info.accessors.get(key) if info is not None else None
        if accessor is None or len(args) != len(accessor.params):
            return False
        if info is not None and not instance_scalar(info, accessor, owner, self.scope):
            return False  # a class template's element that may be an object
        if kind is not AccessKind.READ and not accessor.reference:
            return False
        obj = strip_parens(obj)
        if obj.type == "this":
            prefix = "this->"
        elif _PATH.fullmatch("".join(node_text(obj).split())):
            prefix = "".join(node_text(obj).split()) + ("->" if arrow else ".")
        else:
            return False
        if accessor.expression is not None:
            return self._expand_method(call, accessor, args, prefix, depth)
        subscripts: tuple[Subscript, ...] = ()
        if accessor.index is not None:
            head, dot, rest = prefix.partition(".")
            # A reference to an object is a pointer to it (as `_ref` names it).
            bound = f"{head}->{rest}" if dot and head in self.object_refs else prefix
            texts = index_text(accessor, args, bound) or ()
            parsed = [snippet(text) for text in texts]
            if not parsed or any(_stores(a) for a in args):
                return False
            subscripts = tuple(self._subscript(n) for n in parsed if n is not None)
            if len(subscripts) != len(parsed):
                return False
            for name in sorted(accessor.fields):  # `g.m_ny` of `m_v[i * m_ny + j]`
                self._ref(obj, prefix + name, AccessKind.READ, member=True)
        for arg in args:
            self.expr(arg, depth + 1)
        self._ref(
            call,
            prefix + accessor.member,
            kind,
            subscripts=subscripts,
            reduction=red,
            member=True,
        )
        return True

    def _expand_method(
        self,
        call: Node,
        accessor: Accessor,
        args: tuple[Node, ...],
        prefix: str,
        depth: int,
    ) -> bool:
        """A method returning an expression of its members: that expression, read."""
        if self.inlining >= _MAX_INLINE or any(_stores(a) for a in args):
            return False
        text = expansion_text(accessor, args, prefix)
        parsed = cpp_expression(text) if text is not None else None
        if parsed is None:
            return False
        saved = self._override, self._expanded
        self._override = self._span(call)
        self._expanded = (parsed, call)
        self.inlining += 1
        try:
            self.expr(parsed, depth + 1)
        finally:
            self.inlining -= 1
            self._override, self._expanded = saved
        return True

    def stored_target(self, node: Node) -> str:
        """An expansion's address is stored where the call's value is."""
        if self._expanded is not None and node == self._expanded[0]:
            return super().stored_target(self._expanded[1])
        return super().stored_target(node)

    def _shared_variable(self, place: Node) -> bool:
        """`double &r = s`: a clause on `s` in a loop inside r's scope misses `r`."""
        return place.type == "identifier"

    def inline_lambda(
        self, call: Node, lam: Node, args: tuple[Node, ...], depth: int
    ) -> None:
        """A call of a lambda the function defines: its body, parameters bound."""
        mutable = any(
            c.type == "mutable" or node_text(c) == "mutable" for c in lam.children
        )
        body = lam.child_by_field_name("body")
        if (
            self.inlining >= _MAX_INLINE
            or mutable
            or body is None
            or captures_loop_scalars(call, lam)
        ):
            self._record_call(call, "<lambda>", args)
            for arg in args:
                self.expr(arg, depth + 1)
            return
        declarator = next(
            (c for c in lam.named_children if c.type == "abstract_function_declarator"),
            None,
        )
        params = declarator.child_by_field_name("parameters") if declarator else None
        decls = [
            p
            for p in (params.named_children if params else ())
            if p.type == "parameter_declaration"
        ]
        if len(decls) != len(args):
            self._record_call(call, "<lambda>", args)
            return
        # The parameters' names and types hold in the body only.
        saved_aliases, saved_env = dict(self.aliases), dict(self.env)
        for param, arg in zip(decls, args, strict=True):
            pdecl = param.child_by_field_name("declarator")
            target = declared_name(pdecl)
            if target is None:
                continue
            name = node_text(target)
            if (
                strip_parens(arg).type == "identifier"
                and node_text(strip_parens(arg)) == name
            ):
                continue  # `g(i)` of `[](int i)`: the parameter is the argument
            if is_reference(pdecl) and strip_parens(arg).type in _PLACES:
                self.aliases[name] = strip_parens(arg)
                continue
            self.expr(arg, depth + 1)
            self.aliases.pop(name, None)
            self.env[name] = classify(
                declarator_type(param.child_by_field_name("type"), pdecl), self.scope
            )
            self.decls.extend(declared_vars(param, "local", self.macros))
            self._ref(target, name, AccessKind.WRITE)
            self.definition(call, target, arg)
        self.inlining += 1
        try:
            self.statement(body, depth + 1)
        finally:
            self.inlining -= 1
            self.aliases, self.env = saved_aliases, saved_env


def _stores(node: Node) -> bool:
    """Whether an expression assigns or increments anything."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in ("assignment_expression", "update_expression"):
            return True
        stack.extend(cur.named_children)
    return False
