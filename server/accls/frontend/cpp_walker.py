"""Walk a C++ function body: the C walk, with operators on class types read as calls.

An operator applies the language's own meaning only when every operand has a
builtin type. On a class type it calls a function: a container's element access
(`v[i]`) is an access, a stream's `<<`/`>>` is ordered I/O, anything else is a
call named `CLASS::operator@` whose effects the table or a summary must tell.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from accls.frontend.cpp_algorithms import RANGE_RESULTS, numeric_operands
from accls.frontend.cpp_calls import CppCalls
from accls.frontend.cpp_minmax import standard_minmax
from accls.frontend.cpp_types import UNKNOWN, TypeKind, classify
from accls.frontend.exprs import MAX_DEPTH, node_text, operands, strip_parens
from accls.frontend.model import AccessKind, ExitKind, RedOp, Subscript
from accls.frontend.recorder import LoopRecord

__all__ = ["CppFunctionWalk"]

_STREAM_OPS = frozenset({"<<", ">>"})
_NAME = re.compile(r"[A-Za-z_]\w*")
# Expressions that may name an object of a class: a read may convert it.
_OBJECT_VALUES = frozenset(
    {"identifier", "subscript_expression", "field_expression", "call_expression"}
)


class CppFunctionWalk(CppCalls):
    """One C++ function body: references, calls, declarations and loop records."""

    def statement(self, node: Node, depth: int = 0) -> None:
        """Walk one statement, with C++'s own statements."""
        kind = node.type
        if depth > MAX_DEPTH:
            self._opaque()
        elif kind == "for_range_loop":
            self.range_for(node, depth)
        elif kind == "for_statement" and self.iterator_for(node, depth):
            return
        elif kind == "return_statement" and self.inlining:
            for child in node.named_children:
                self.expr(child, depth + 1)
        elif kind == "throw_statement":
            for child in node.named_children:
                self.expr(child, depth + 1)
            self._exit(ExitKind.EXIT, node)
        elif kind == "try_statement":
            # A catch clause runs after a throw: it is a branch of its own.
            for child in node.named_children:
                if child.type == "catch_clause":
                    self._push_ctx(child)
                    self.statement(child, depth + 1)
                    self._ctx.pop()
                else:
                    self.statement(child, depth + 1)
        elif kind == "catch_clause":
            body = node.child_by_field_name("body")
            if body is not None:
                self.statement(body, depth + 1)
        elif kind in (
            "namespace_alias_definition",
            "using_declaration",
            "alias_declaration",
        ) or kind in ("static_assert_declaration", "type_definition"):
            return
        else:
            super().statement(node, depth)

    def minmax_call(self, fn: Node, target: str) -> RedOp | None:
        """`std::max` and its spellings, resolved (see cpp_minmax)."""
        text = node_text(fn)
        if text in self.macros.functions:
            return super().minmax_call(fn, target)
        plain = "".join(text.split()).split("<", 1)[0]
        if fn.type == "identifier" and (
            plain in self.lambdas
            or self.variable_type(plain) is not None
            or self._method_owner(plain) is not None
        ):
            return None
        # In a method, a base the file does not resolve may declare `max`:
        # any class's method of that name may be the one called.
        own = (
            fn.type == "identifier"
            and self.class_name is not None
            and any(plain in self._methods_of(c) for c in self.scope.classes)
        )
        return standard_minmax(text, self.scope, own, self.variable_type(target))

    def builtin_operands(self, target: Node) -> bool:
        """`c[i] = c[i] * s` on a class element calls `operator*`: no plain update."""
        return self.type_of(target).builtin

    def expr(self, node: Node, depth: int = 0, used: bool = True) -> None:
        """Walk an expression; operators on class types become calls."""
        if depth > MAX_DEPTH:
            self._opaque()
            return
        kind = node.type
        if kind in _OBJECT_VALUES:
            self._converted(node)
        if kind == "identifier":
            self.identifier(node, AccessKind.READ)
        elif kind == "qualified_identifier" and self.constant_member(node):
            return  # a read-only static member: a constant, no memory read
        elif kind in ("qualified_identifier", "template_function"):
            self._ref(node, "".join(node_text(node).split()), AccessKind.READ)
        elif kind == "this":
            return
        elif kind in ("binary_expression", "assignment_expression"):
            if not self._operator(node, depth):
                super().expr(node, depth, used)
        elif kind == "pointer_expression" and self._range_element(node):
            # `*std::max_element(f, l)`: an element of the range the call reads.
            self.expr(strip_parens(node.named_children[-1]), depth + 1)
        elif self._iterator_element(node):
            arg = node.child_by_field_name("argument")
            if arg is not None:
                self.identifier(strip_parens(arg), AccessKind.READ)
        elif kind in ("unary_expression", "update_expression", "pointer_expression"):
            arg = node.child_by_field_name("argument")
            if (
                arg is not None
                and not self.type_of(arg).builtin
                and not (
                    kind == "pointer_expression" and node_text(node).startswith("&")
                )
            ):
                op = node.child_by_field_name("operator")
                self._operator_call(
                    node, arg, node_text(op) if op else "", [arg], depth
                )
            else:
                super().expr(node, depth, used)
        elif kind == "subscript_expression":
            if self._element_base(node):
                super().expr(node, depth, used)
            elif not self.operator_place(node, AccessKind.READ, None, depth):
                base = node.child_by_field_name("argument")
                if base is not None:
                    self._operator_call(
                        node, base, "[]", list(node.named_children), depth
                    )
        elif kind == "call_expression":
            self._cpp_call(node, depth, used)
        elif kind == "new_expression":
            self._new_object(node, depth)
        elif kind == "delete_expression":
            self._deleted(node, depth)
        elif kind == "lambda_expression":
            # A closure not called here: what it does when called is unknown.
            self._record_call(node, "<lambda>", ())
        elif kind in ("condition_clause", "initializer_list", "argument_list"):
            for child in node.named_children:
                self.expr(child, depth + 1)
        elif kind in ("co_await_expression", "co_yield_statement", "fold_expression"):
            self._opaque()
        else:
            super().expr(node, depth, used)

    def _loop_record(self, node: Node) -> LoopRecord:
        """A loop's record, with the accessor calls its condition makes."""
        rec = super()._loop_record(node)
        cond = node.child_by_field_name("condition")
        if node.type == "for_statement" and cond is not None:
            rec.call_bounds = self._bound_members(cond)
        return rec

    def _bound_members(self, cond: Node) -> dict[str, str]:
        """`g.ny()` of `int ny() const { return m_ny; }`: the member `g->m_ny`."""
        out: dict[str, str] = {}
        stack = [cond]
        while stack:
            node = stack.pop()
            stack.extend(node.named_children)
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if node.type != "call_expression" or fn is None or args is None:
                continue
            obj, method = (
                fn.child_by_field_name("argument"),
                fn.child_by_field_name("field"),
            )
            if fn.type != "field_expression" or obj is None or method is None:
                continue
            owner = self.object_type(obj)
            info = self.scope.classes.get(owner.name.rsplit("::", 1)[-1])
            found = info.accessors.get((node_text(method), 0)) if info else None
            path = "".join(node_text(obj).split())
            if found is None or found.index is not None or found.expression:
                continue
            if found.element_param or not _NAME.fullmatch(path):
                continue  # a class template's member, or an object not named
            arrow = any(c.type == "->" for c in fn.children if not c.is_named)
            sep = "->" if arrow or path in self.object_refs else "."
            out["".join(node_text(node).split())] = f"{path}{sep}{found.member}"
        return out

    def _converted(self, node: Node) -> None:
        """An object whose class converts itself: each `operator T` may run here.

        Which reads convert (`double d = p;`) is the compiler's choice of
        overloads; every read of such an object is taken to call them all.
        """
        kind = self.type_of(node)
        if kind.kind is not TypeKind.CLASS or kind.pointer:
            return
        info = self.scope.classes.get(kind.name.rsplit("::", 1)[-1])
        for conversion in sorted(info.conversions if info is not None else ()):
            self._record_call(node, f"{kind.name}::{conversion}", (node,))

    def default_arguments(self, values: tuple[Node, ...]) -> None:
        """The default arguments a call may leave out, evaluated for each such call.

        Read as the function's own: their calls and reads are its effects.
        """
        for value in values:
            self.expr(value, 1)

    def lvalue(
        self, node: Node, kind: AccessKind, red: RedOp | None, depth: int
    ) -> None:
        """Record a reference to a place, reading aliases and members."""
        inner = strip_parens(node)
        if inner.type == "identifier":
            self.identifier(inner, kind, red)
            return
        if self._iterator_element(inner):
            arg = inner.child_by_field_name("argument")
            if arg is not None:
                self.identifier(strip_parens(arg), kind, red)
            return
        if inner.type in ("subscript_expression", "call_expression") and (
            self.operator_place(inner, kind, red, depth)
        ):
            return
        if inner.type == "subscript_expression" and not self._element_base(inner):
            # `s[i] = e` of a class's `T &operator[]`: the call, then a store
            # through the reference it returns, to a place it does not tell.
            self.expr(inner, depth + 1)
            text = "".join(node_text(inner).split())
            self._ref(inner, text, kind, subscripts=(Subscript(text, None),))
            return
        if inner.type == "call_expression" and self._element_call(inner):
            self._element_access(inner, kind, depth)
            return
        if inner.type == "call_expression" and self.accessor_place(
            inner, kind, red, depth
        ):
            return
        super().lvalue(node, kind, red, depth)

    def _range_element(self, node: Node) -> bool:
        """`*std::max_element(first, last)` of a range of numbers."""
        call = strip_parens(node.named_children[-1]) if node.named_children else None
        fn = call.child_by_field_name("function") if call is not None else None
        if node_text(node).lstrip().startswith("&") or call is None or fn is None:
            return False
        name = self.callee_name(fn) if fn.type == "qualified_identifier" else ""
        return RANGE_RESULTS.get(name) == 0 and numeric_operands(
            name, call, self.type_of, lambda t: classify(t, self.scope)
        )

    def _iterator_element(self, node: Node) -> bool:
        """`*it` of an iterator loop's iterator: the element it stands at."""
        arg = node.child_by_field_name("argument")
        return (
            node.type == "pointer_expression"
            and arg is not None
            and strip_parens(arg).type == "identifier"
            and node_text(strip_parens(arg)) in self.iterators
            and not node_text(node).lstrip().startswith("&")
        )

    # ----- operators and calls ---------------------------------------------
    def _operator(self, node: Node, depth: int) -> bool:
        """Walk `a OP b` as a call when an operand is not builtin; False if both are."""
        parts = operands(node)
        if parts is None:
            return False
        left, op, right = parts
        left_type = self.type_of(left)
        if node.type == "assignment_expression" and self._summed(left, op, right):
            return False  # a field-by-field sum: the update of a value, like `+=`
        if node.type == "assignment_expression":
            if left_type.builtin and self.type_of(right).builtin:
                return False
            if op == "=" and self.trivially_copied(left_type):
                return False  # a struct of the file, copied member by member
        elif left_type.builtin and self.type_of(right).builtin:
            return False
        if left_type.kind is TypeKind.STREAM and op in _STREAM_OPS:
            self._stream(node, left, op, right, depth)
            return True
        self._operator_call(node, left, op, [left, right], depth)
        return True

    def _summed(self, left: Node, op: str, right: Node) -> bool:
        """`s += e` on a class whose `operator+=` sums it field by field."""
        if op != "+=" or strip_parens(left).type != "identifier":
            return False
        kind, value = self.type_of(left), self.type_of(right)
        name = kind.name.rsplit("::", 1)[-1]
        return (
            kind.kind is TypeKind.CLASS
            and name in self.scope.reducers
            and value.kind is TypeKind.CLASS
            and value.name.rsplit("::", 1)[-1] == name
        )

    def _stream(self, node: Node, left: Node, op: str, right: Node, depth: int) -> None:
        """`in >> x` reads the stream and writes x; `out << x` reads x: both are I/O."""
        self.expr(left, depth + 1)
        self._record_call(node, f"std::stream::operator{op}", (left, right))
        if op == ">>" and self.type_of(right).builtin:
            self.lvalue(right, AccessKind.WRITE, None, depth)
        else:
            self.expr(right, depth + 1)

    def member_initializers(self, definition: Node) -> None:
        """A constructor's `: m(args), Base(args)`, and the members it leaves out.

        Each initializes a member (a write of `this->m`); one of a class type, or
        a base, runs a constructor: a call, unless it only stores its arguments.
        """
        inits = next(
            (
                c
                for c in definition.named_children
                if c.type == "field_initializer_list"
            ),
            None,
        )
        if inits is None and self.class_name is None:
            return
        named: set[str] = set()
        for init in inits.named_children if inits is not None else ():
            target = init.named_children[0] if init.named_child_count else None
            args = init.child_by_field_name("arguments") or next(
                (c for c in init.named_children if c.type == "initializer_list"), None
            )
            arg_nodes = tuple(args.named_children) if args is not None else ()
            for arg in arg_nodes:
                self.expr(arg, 1)
            name = node_text(target) if target is not None else ""
            named.add(name)
            self._member_constructed(init, name, arg_nodes)
        if definition.child_by_field_name("body") is None or not self._is_constructor(
            definition
        ):
            return
        for name in self.own_members:
            if name not in named:
                self._member_constructed(definition, name, ())

    def _is_constructor(self, definition: Node) -> bool:
        plain = (self.class_name or "").rsplit("::", 1)[-1]
        return bool(plain) and (self.name or "").rsplit("::", 1)[-1] == plain

    def _member_constructed(
        self, node: Node, name: str, args: tuple[Node, ...]
    ) -> None:
        """Member (or base) `name` made from `args`: a call unless plain."""
        text = self.members.get(name)
        kind = classify(text, self.scope) if text is not None else UNKNOWN
        info = self.scope.classes.get(kind.name.rsplit("::", 1)[-1]) if text else None
        if text is None or not (
            kind.builtin or (info is not None and info.plain_constructors)
        ):
            # The member's constructor works on `this->m`, a base's on `this`.
            owner = kind.name or name
            this = f"this->{name}" if text is not None else "this"
            self._record_call(node, f"{owner}::{owner.rsplit('::', 1)[-1]}", args, this)
        if text is not None:
            self._ref(node, f"this->{name}", AccessKind.WRITE, member=True)

    def mark_unknown_write(self, node: Node, name: str, kind: AccessKind) -> None:
        """A write through a reference to an unknown place."""
        self._ref(node, name, kind, subscripts=(Subscript(name, None),), deref=True)
