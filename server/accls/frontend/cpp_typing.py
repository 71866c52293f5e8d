"""The C++ types of names and expressions in a function walk.

What an operator means in C++ depends on its operands' types. The walk knows the
types of the parameters, the locals declared so far, the globals and the data
members of the method's class; from them it tells the type of an expression as
far as operators need it, and UNKNOWN where it cannot.
"""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_algorithms import RANGE_RESULTS, range_type
from accls.frontend.cpp_bases import inherited_fields
from accls.frontend.cpp_call_types import (
    binary_type,
    lambda_result,
    method_type,
    operator_type,
)
from accls.frontend.cpp_library_types import library_method_type
from accls.frontend.cpp_returns import free_return
from accls.frontend.cpp_types import (
    BUILTIN,
    STREAM_OBJECTS,
    UNKNOWN,
    ClassInfo,
    CxxScope,
    CxxType,
    TypeKind,
    classify,
    unqualified,
)
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.library import Effect, library_function
from accls.frontend.macros import MacroTable
from accls.frontend.model import Subscript
from accls.frontend.walker import FunctionWalk

__all__ = ["CppTyping"]

_LITERALS = frozenset(
    {
        "number_literal", "char_literal", "true", "false", "null", "nullptr",
        "sizeof_expression", "alignof_expression",
    }
)  # fmt: skip
_STRINGS = frozenset({"string_literal", "concatenated_string", "raw_string_literal"})


class CppTyping(FunctionWalk):
    """The C walk's state, with the C++ types of what it walks."""

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
        object_refs: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__(name, macros, params, inactive)
        self.scope = scope
        self.env: dict[str, CxxType] = {k: classify(v, scope) for k, v in env.items()}
        self.references = set(references)  # scalar references: each use is a deref
        # References to objects (`Domain &d`): `d.m` is read as `d->m`.
        self.object_refs = set(object_refs)
        self.class_name = class_name
        info = scope.classes.get(class_name) if class_name else None
        self.members = dict(info.fields) if info is not None else {}
        # Constructed here (see member_initializers): the class's own members.
        self.own_members = tuple(self.members)
        for name, text in inherited_fields(scope, class_name or "").items():
            self.members.setdefault(name, text)
        self.aliases: dict[str, Node] = {}
        # Range-for elements: the range and the loop's index (see cpp_ranges).
        self.elements: dict[str, tuple[str, str]] = {}
        # Range-for rows and their elements over a container of containers: the
        # outermost range and the subscripts that reach them (see cpp_ranges).
        self.rows: dict[str, tuple[str, tuple[Subscript, ...]]] = {}
        self.lambdas: dict[str, Node] = {}
        self.iterators: set[str] = set()  # `it` of an iterator loop: `*it` elements
        self.inlining = 0
        # The method expansion being walked, and the call it stands for.
        self._expanded: tuple[Node, Node] | None = None

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

    def constant_member(self, node: Node) -> CxxType | None:
        """The builtin type of `S::k`, `Fact<5>::value`: a read-only static member.

        Every class of that name the file (and its headers) declare gives `k`
        as `const` or `constexpr`: no statement writes it, so reading it reads
        nothing another iteration writes. None otherwise.
        """
        text = "".join(node_text(node).split())
        head, _, last = text.rpartition("::")
        if not head or "<" in last:
            return None
        info = self.scope.classes.get(unqualified(head))
        if info is None or last not in info.constants or last in info.varying:
            return None
        found = classify(info.fields.get(last, ""), self.scope)
        return found if found.builtin and not found.pointer else None

    def _static_member(self, node: Node) -> CxxType:
        """The builtin type of `S::x`, a static data member of the file's class `S`.

        Unlike a constant it may be written: it stays a shared variable, and
        only its operators are the language's own. UNKNOWN otherwise, and for
        a template's (`F<5>::x`: a specialization may declare anything).
        """
        text = "".join(node_text(node).split())
        head, _, last = text.rpartition("::")
        info = self.scope.classes.get(unqualified(head)) if head else None
        if info is None or "<" in text or last not in info.varying:
            return UNKNOWN
        found = classify(info.fields.get(last, ""), self.scope)
        return found if found.builtin and not found.pointer else UNKNOWN

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
            text = "".join(node_text(node).split()).removeprefix("::")
            last = text.rsplit("::", 1)[-1]
            if text.startswith("std::") and last in STREAM_OBJECTS:
                return CxxType(TypeKind.STREAM, name="std::stream")
            if last in self.scope.enums:
                return BUILTIN
            return self.constant_member(node) or self._static_member(node)
        if kind == "this":
            return CxxType(
                TypeKind.BUILTIN, element=self.class_name or "", pointer=True
            )
        if kind == "subscript_expression":
            base = node.child_by_field_name("argument")
            found = self.type_of(base, depth + 1) if base is not None else UNKNOWN
            if found.pointer or found.kind is TypeKind.CONTAINER:
                return classify(found.element, self.scope)
            return operator_type(self.scope, found, "[]", 1)
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
            return UNKNOWN if lt.builtin else binary_type(self.scope, lt, text)
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
            returned = library_method_type(owner, name, self.scope)
            if returned is not None:
                return returned
            info = self.scope.classes.get(owner.name.rsplit("::", 1)[-1])
            if info is not None and name in info.methods:
                return self._overload_type(info, name, node, owner.args)
            return UNKNOWN
        if fn.type == "template_function":
            head = node_text(fn).split("<", 1)[0].strip()
            args = fn.child_by_field_name("arguments")
            if head in ("static_cast", "const_cast") and args is not None:
                return classify(node_text(args)[1:-1], self.scope)
            return UNKNOWN
        if self.functional_cast(fn):
            return classify(node_text(fn), self.scope)
        if self.constructed_class(fn) is not None:
            return classify(node_text(fn), self.scope)
        name = self.callee_name(fn)
        if name in self.lambdas:
            return self._lambda_type(self.lambdas[name], depth)
        functor = self.variable_type(name) if fn.type == "identifier" else None
        if functor is not None and not functor.builtin:
            return operator_type(self.scope, functor, "()", _count(node))
        if name in self.macros.functions:
            # A function-like macro is the type of what it expands to.
            expanded = self._expand(node)
            return UNKNOWN if expanded is None else self.type_of(expanded, depth + 1)
        known = library_function(name)
        if known is not None and known.effect in (Effect.PURE, Effect.QUERY):
            return BUILTIN
        if name in RANGE_RESULTS:  # `std::accumulate(f, l, 0.0)`: init's type
            return range_type(name, node, lambda n: self.type_of(n, depth + 1))
        plain = name.rsplit("::", 1)[-1]
        own = self.scope.classes.get(self.class_name or "")
        if own is not None and fn.type == "identifier" and plain in own.methods:
            return self._overload_type(own, plain, node)
        mixed = free_return(self.scope, plain)
        if mixed is not None:
            return mixed  # overloads of different types: what they agree on
        if plain in self.scope.returns and plain not in self.scope.template_params:
            return classify(self.scope.returns[plain], self.scope)
        return UNKNOWN

    def _overload_type(
        self, info: ClassInfo, name: str, call: Node, args: tuple[str, ...] = ()
    ) -> CxxType:
        """The type of a call of the method `name`: the overload its count runs."""
        return method_type(info, name, _count(call), self.scope, args)

    def _lambda_type(self, lam: Node, depth: int) -> CxxType:
        """A lambda's result: its declared type, or that of its `return` expressions."""
        return lambda_result(
            lam, self.scope, self.env, lambda n: self.type_of(n, depth + 1)
        )

    def functional_cast(self, fn: Node) -> bool:
        """Whether `fn(x)` converts to a builtin type: `Real_t(0.0)`, `double(n)`."""
        if fn.type not in ("identifier", "primitive_type", "type_identifier"):
            return False
        name = node_text(fn)
        if self.variable_type(name) is not None or name in self.scope.returns:
            return False
        known = name in self.scope.aliases or fn.type != "identifier"
        return known and classify(name, self.scope).builtin

    def constructed_class(self, fn: Node) -> ClassInfo | None:
        """The class `fn(args)` constructs a temporary of, if it names one."""
        if fn.type != "identifier":
            return None
        name = node_text(fn)
        info = self.scope.classes.get(name)
        if info is None or self.variable_type(name) is not None:
            return None
        # A function of the same name (not the constructor itself) shadows it.
        return info if self.scope.returns.get(name, "") == "" else None

    def plain_construction(self, fn: Node) -> bool:
        """Whether constructing the class `fn` names runs only plain constructors."""
        info = self.constructed_class(fn)
        return info is not None and info.plain_constructors

    def callee_name(self, fn: Node) -> str:
        """The name a call is looked up by: `std::max<T>` is `std::max`, `ns::f` `f`.

        `S::g(x)` of a static method of the file's class `S` is `S::g`, the name
        its definition is summarised under (it takes no object: the arguments
        line up with its parameters).
        """
        text = "".join(node_text(fn).split())
        if fn.type == "template_function" or "<" in text:
            text = text.split("<", 1)[0]
        if text.startswith("::std::") or (
            text.startswith("::") and "::" not in text[2:]
        ):
            # The global `std` is the one namespace std; `::f` is the global
            # `f`, or the one a `using namespace` directive brings in.
            text = text[2:]
        head, _, plain = text.rpartition("::")
        info = self.scope.classes.get(head.rsplit("::", 1)[-1])
        if info is not None and plain in info.statics and plain in info.methods:
            return f"{info.name.rsplit('::', 1)[-1]}::{plain}"
        if not text.startswith("std::") and plain in self.scope.returns:
            return plain
        return text

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


def _count(call: Node) -> int:
    """The number of arguments a call passes."""
    args = call.child_by_field_name("arguments")
    return sum(1 for a in (args.named_children if args else ()) if a.type != "comment")
