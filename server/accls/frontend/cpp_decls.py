"""C++ names in a function walk: their types, references, members and lambdas.

A reference declared from a place (`double &x = a[i]`) is that place: each use of
`x` is recorded as a use of `a[i]`. A scalar reference parameter is written
through, like a pointer. A class's data member used in a method is `this->m`.
A lambda is not walked where it is defined but where it is called, its
parameters bound to the arguments.
"""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from accls.frontend.cpp_types import (
    BUILTIN,
    STREAM_OBJECTS,
    UNKNOWN,
    CxxScope,
    CxxType,
    TypeKind,
    classify,
    declarator_type,
    declared_name,
)
from accls.frontend.decls import declared_vars
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.library import Effect, library_function
from accls.frontend.macros import MacroTable
from accls.frontend.model import (
    FROM_CALL,
    AccessKind,
    Advance,
    Call,
    RedOp,
    Subscript,
    Var,
)
from accls.frontend.walker import FunctionWalk

__all__ = ["CppDeclarations", "cpp_var", "is_reference"]

_LITERALS = frozenset(
    {
        "number_literal", "char_literal", "true", "false", "null", "nullptr",
        "sizeof_expression", "alignof_expression",
    }
)  # fmt: skip
_STRINGS = frozenset({"string_literal", "concatenated_string", "raw_string_literal"})
_PLACES = frozenset({"identifier", "subscript_expression", "field_expression"})
_FRESH = frozenset({"std::vector", "std::array", "std::valarray"})
_MAX_INLINE = 4


def is_reference(declarator: Node | None) -> bool:
    """True when a declarator declares a reference (`T &x`, `T &&x`)."""
    while declarator is not None:
        if declarator.type == "reference_declarator":
            return True
        declarator = declarator.child_by_field_name("declarator")
    return False


def cpp_var(var: Var, kind: CxxType, reference: bool) -> Var:
    """A Var as the analysis reads it: a container is a pointer to its elements."""
    if kind.kind is TypeKind.CONTAINER:
        fresh = var.scope == "local" and not reference and kind.name in _FRESH
        return replace(
            var, type=kind.element or "int", pointers=var.pointers + 1, fresh=fresh
        )
    if reference and kind.builtin:
        return replace(var, pointers=var.pointers + 1)
    return var


class CppDeclarations(FunctionWalk):
    """The C walk, with the types and the meanings of C++ names."""

    def __init__(
        self,
        name: str | None,
        macros: MacroTable,
        params: frozenset[str],
        inactive: frozenset[int],
        *,
        scope: CxxScope,
        env: dict[str, str],
        references: frozenset[str] = frozenset(),
        class_name: str | None = None,
    ) -> None:
        super().__init__(name, macros, params, inactive)
        self.scope = scope
        self.env: dict[str, CxxType] = {k: classify(v, scope) for k, v in env.items()}
        self.references = set(references)  # scalar references: each use is a deref
        self.class_name = class_name
        info = scope.classes.get(class_name) if class_name else None
        self.members = dict(info.fields) if info is not None else {}
        self.aliases: dict[str, Node] = {}
        self.elements: dict[str, str] = {}  # range-for references: elements of
        self.lambdas: dict[str, Node] = {}
        self.inlining = 0

    # ----- types -----------------------------------------------------------
    def variable_type(self, name: str) -> CxxType | None:
        """The type of a variable in scope, or None when it is not declared."""
        if name in self.aliases:
            return self.type_of(self.aliases[name])
        if name in self.env:
            return self.env[name]
        if name in self.members:
            return classify(self.members[name], self.scope)
        return None

    def object_type(self, obj: Node, _text: str = "") -> CxxType:
        """The class of the object a member or method is taken of (through `->`)."""
        parent = obj.parent
        arrow = parent is not None and any(
            c.type == "->" for c in parent.children if not c.is_named
        )
        kind = self.type_of(obj)
        if arrow:
            return classify(kind.element, self.scope) if kind.pointer else UNKNOWN
        return kind

    def type_of(self, node: Node, depth: int = 0) -> CxxType:
        """The kind of an expression's type, UNKNOWN where it cannot be told."""
        node = strip_parens(node)
        kind = node.type
        if depth > 32:
            return UNKNOWN
        if kind in _LITERALS:
            return BUILTIN
        if kind in _STRINGS:
            return CxxType(TypeKind.BUILTIN, element="char", pointer=True)
        if kind == "identifier":
            name = node_text(node)
            found = self.variable_type(name)
            if found is not None:
                return found
            if name in self.macros.objects or name in self.scope.enums:
                return BUILTIN
            if name in STREAM_OBJECTS and self.scope.using_std:
                return CxxType(TypeKind.STREAM, name="std::stream")
            return UNKNOWN
        if kind == "qualified_identifier":
            text = "".join(node_text(node).split())
            last = text.rsplit("::", 1)[-1]
            if text.startswith("std::") and last in STREAM_OBJECTS:
                return CxxType(TypeKind.STREAM, name="std::stream")
            return BUILTIN if last in self.scope.enums else UNKNOWN
        if kind == "this":
            return CxxType(
                TypeKind.BUILTIN, element=self.class_name or "", pointer=True
            )
        if kind == "subscript_expression":
            base = node.child_by_field_name("argument")
            found = self.type_of(base, depth + 1) if base is not None else UNKNOWN
            if found.pointer or found.kind is TypeKind.CONTAINER:
                return classify(found.element, self.scope)
            return UNKNOWN
        if kind == "field_expression":
            obj = node.child_by_field_name("argument")
            member = node.child_by_field_name("field")
            owner = self.object_type(obj) if obj is not None else UNKNOWN
            info = self.scope.classes.get(owner.name.rsplit("::", 1)[-1])
            if info is None or member is None or node_text(member) not in info.fields:
                return UNKNOWN
            return classify(info.fields[node_text(member)], self.scope)
        if kind == "call_expression":
            return self._call_type(node, depth)
        if kind in ("binary_expression", "conditional_expression"):
            return self._binary_type(node, depth)
        if kind in ("unary_expression", "update_expression"):
            arg = node.child_by_field_name("argument")
            found = self.type_of(arg, depth + 1) if arg is not None else UNKNOWN
            return found if found.builtin else UNKNOWN
        if kind == "pointer_expression":
            arg = node.child_by_field_name("argument")
            found = self.type_of(arg, depth + 1) if arg is not None else UNKNOWN
            if node_text(node).lstrip().startswith("&"):
                return CxxType(TypeKind.BUILTIN, pointer=True)
            return classify(found.element, self.scope) if found.pointer else UNKNOWN
        if kind == "cast_expression":
            target = node.child_by_field_name("type")
            return classify(node_text(target), self.scope) if target else UNKNOWN
        if kind == "assignment_expression":
            left = node.child_by_field_name("left")
            return self.type_of(left, depth + 1) if left is not None else UNKNOWN
        if kind == "comma_expression":
            right = node.child_by_field_name("right")
            return self.type_of(right, depth + 1) if right is not None else UNKNOWN
        if kind == "new_expression":
            return CxxType(TypeKind.BUILTIN, pointer=True)
        if kind == "lambda_expression":
            return CxxType(TypeKind.LAMBDA)
        return UNKNOWN

    def _binary_type(self, node: Node, depth: int) -> CxxType:
        if node.type == "conditional_expression":
            parts = [
                node.child_by_field_name(f) for f in ("consequence", "alternative")
            ]
            types = [
                self.type_of(p, depth + 1) if p is not None else UNKNOWN for p in parts
            ]
            return types[0] if all(t.builtin for t in types) else UNKNOWN
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        lt = self.type_of(left, depth + 1) if left is not None else UNKNOWN
        rt = self.type_of(right, depth + 1) if right is not None else UNKNOWN
        text = node_text(op) if op is not None else ""
        if lt.kind is TypeKind.STREAM and text in ("<<", ">>"):
            return lt
        if not (lt.builtin and rt.builtin):
            return UNKNOWN
        if (
            text in ("+", "-")
            and (lt.pointer or rt.pointer)
            and not (lt.pointer and rt.pointer)
        ):
            return lt if lt.pointer else rt
        return BUILTIN

    def _call_type(self, node: Node, depth: int) -> CxxType:
        fn = node.child_by_field_name("function")
        if fn is None:
            return UNKNOWN
        fn = strip_parens(fn)
        if fn.type == "field_expression":
            obj = fn.child_by_field_name("argument")
            method = fn.child_by_field_name("field")
            owner = self.object_type(obj) if obj is not None else UNKNOWN
            name = node_text(method) if method is not None else ""
            if owner.kind is TypeKind.CONTAINER:
                if name in ("size", "empty", "capacity"):
                    return BUILTIN
                if name == "data":
                    return CxxType(
                        TypeKind.BUILTIN, element=owner.element, pointer=True
                    )
                if name in ("at", "front", "back"):
                    return classify(owner.element, self.scope)
                if name in ("begin", "end", "cbegin", "cend"):
                    # A random-access iterator: a pointer to an element, to operators.
                    return CxxType(
                        TypeKind.BUILTIN, element=owner.element, pointer=True
                    )
                return UNKNOWN
            info = self.scope.classes.get(owner.name.rsplit("::", 1)[-1])
            if info is not None and name in info.methods:
                return classify(info.methods[name], self.scope)
            return UNKNOWN
        if fn.type == "template_function":
            head = node_text(fn).split("<", 1)[0].strip()
            args = fn.child_by_field_name("arguments")
            if head in ("static_cast", "const_cast") and args is not None:
                return classify(node_text(args)[1:-1], self.scope)
            return UNKNOWN
        name = self.callee_name(fn)
        if name in self.lambdas:
            return self._lambda_type(self.lambdas[name], depth)
        known = library_function(name)
        if known is not None and known.effect in (Effect.PURE, Effect.QUERY):
            return BUILTIN
        plain = name.rsplit("::", 1)[-1]
        if plain in self.scope.returns and plain not in self.scope.template_params:
            return classify(self.scope.returns[plain], self.scope)
        return UNKNOWN

    def _lambda_type(self, lam: Node, depth: int) -> CxxType:
        """A lambda's result: its declared type, or that of its `return` expressions."""
        declarator = next(
            (c for c in lam.named_children if c.type == "abstract_function_declarator"),
            None,
        )
        declared = declarator.child_by_field_name("declarator") if declarator else None
        if declared is not None and declared.type == "trailing_return_type":
            return classify(node_text(declared).removeprefix("->"), self.scope)
        body = lam.child_by_field_name("body")
        found: list[CxxType] = []
        stack = [body] if body is not None else []
        while stack:
            cur = stack.pop()
            if cur.type == "lambda_expression":
                continue
            if cur.type == "return_statement":
                found.extend(self.type_of(c, depth + 1) for c in cur.named_children)
                continue
            stack.extend(cur.named_children)
        return found[0] if found and all(t.builtin for t in found) else UNKNOWN

    def callee_name(self, fn: Node) -> str:
        """The name a call is looked up by: `std::max<T>` is `std::max`, `ns::f` `f`."""
        text = "".join(node_text(fn).split())
        if fn.type == "template_function" or "<" in text:
            text = text.split("<", 1)[0]
        plain = text.rsplit("::", 1)[-1]
        if not text.startswith("std::") and plain in self.scope.returns:
            return plain
        return text

    def _record_call(self, node: Node, name: str, args: tuple[Node, ...]) -> None:
        """A call the C++ walk names (`std::stream::operator>>`), args as text."""
        texts = tuple(" ".join(node_text(a).split()) for a in args)
        self.call_refs.append(len(self.refs))
        self.calls.append(
            (Call(name, self._span(node), texts), tuple(r.id for r in self._loops))
        )

    # ----- names -----------------------------------------------------------
    def identifier(
        self, node: Node, kind: AccessKind, red: RedOp | None = None
    ) -> None:
        """A use of a name: an alias, a reference, a member or a plain variable."""
        name = node_text(node)
        if name in self.aliases:
            target = self.aliases.pop(name)  # no alias of itself while it is read
            try:
                self.lvalue(target, kind, red, 0)
            finally:
                self.aliases[name] = target
        elif name in self.elements:
            range_name = self.elements[name]
            self._ref(
                node,
                range_name,
                kind,
                subscripts=(Subscript(name, None),),
                reduction=red,
            )
        elif name in self.references:
            self._ref(node, name, kind, reduction=red, deref=True)
        else:
            self._ref(node, name, kind, reduction=red)

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
    ) -> None:
        """Every reference: a data member named bare in a method is `this->m`."""
        if name in self.members and name not in self.env and name not in self.params:
            name, member, advance = f"this->{name}", True, None
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
            or name in self.references
            or (name in self.members and name not in self.env)
        )

    def _declaration(self, node: Node, depth: int) -> None:
        """A declaration: references become aliases, lambdas wait for their calls."""
        base = node.child_by_field_name("type")
        plain: list[Node] = []
        for declarator in node.children_by_field_name("declarator"):
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
            if reference:
                self.references.add(name)
            plain.append(declarator)
            if kind.kind is TypeKind.CLASS and self._constructs(kind, value):
                self._record_call(
                    declarator, f"{kind.name}::{kind.name.rsplit('::', 1)[-1]}", ()
                )
        if not plain:
            return
        first = len(self.decls)
        super()._declaration(node, depth)
        for k in range(first, len(self.decls)):
            var = self.decls[k]
            kind = self.env.get(var.name, UNKNOWN)
            self.decls[k] = cpp_var(var, kind, var.name in self.references)

    def trivially_copied(self, kind: CxxType, depth: int = 0) -> bool:
        """Whether `=` of this class copies its members and calls nothing."""
        if kind.builtin:
            return depth > 0
        info = self.scope.classes.get(kind.name.rsplit("::", 1)[-1])
        if info is None or depth > 8 or kind.kind is not TypeKind.CLASS:
            return False
        plain = kind.name.rsplit("::", 1)[-1]
        if "operator=" in info.methods or f"~{plain}" in info.methods:
            return False
        return all(
            self.trivially_copied(classify(t, self.scope), depth + 1)
            for t in info.fields.values()
        )

    def _constructs(self, kind: CxxType, value: Node | None) -> bool:
        """Whether declaring an object of this class runs a constructor unread here."""
        info = self.scope.classes.get(kind.name.rsplit("::", 1)[-1])
        if info is None:
            return value is None or value.type in ("argument_list", "initializer_list")
        return kind.name.rsplit("::", 1)[-1] in info.methods

    def range_variable(
        self, node: Node, declarator: Node | None, right: Node | None
    ) -> None:
        """The variable of `for (T x : range)`: an element of the range, or a copy."""
        target = declared_name(declarator)
        if target is None or right is None:
            return
        name = node_text(target)
        range_type = self.type_of(right)
        range_name = "".join(node_text(strip_parens(right)).split())
        if not (range_type.kind is TypeKind.CONTAINER or range_type.pointer):
            owner = range_type.name or "auto"
            self._record_call(node, f"{owner}::begin", (right,))
        base = node.child_by_field_name("type")
        element = (
            classify(range_type.element, self.scope) if range_type.element else UNKNOWN
        )
        if is_reference(declarator) and element.builtin and not element.pointer:
            self.elements[name] = range_name
            return
        if is_reference(declarator):
            # A row of the range: a pointer into it, from where the walk cannot tell.
            self.env[name] = element
            row = Var(name=name, type=element.element or "int", pointers=1)
            self.decls.append(replace(row, sources=(FROM_CALL,)))
            self._ref(target, name, AccessKind.WRITE)
            return
        text = declarator_type(base, declarator)
        self.env[name] = element if "auto" in text else classify(text, self.scope)
        self.decls.append(Var(name=name, type=node_text(base) if base else "auto"))
        self._ref(target, name, AccessKind.WRITE)

    def inline_lambda(
        self, call: Node, lam: Node, args: tuple[Node, ...], depth: int
    ) -> None:
        """A call of a lambda the function defines: its body, parameters bound."""
        mutable = any(
            c.type == "mutable" or node_text(c) == "mutable" for c in lam.children
        )
        body = lam.child_by_field_name("body")
        if self.inlining >= _MAX_INLINE or mutable or body is None:
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
        saved_aliases = dict(self.aliases)
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
            self.aliases = saved_aliases
