"""The calls of a C++ body: overloaded operators, methods, temporaries, elements."""

from __future__ import annotations

from tree_sitter import Node

from accls.frontend.cpp_algorithms import RANGE_OPERATORS, numeric_operands
from accls.frontend.cpp_destructors import DESTROYING_METHODS, destructors
from accls.frontend.cpp_element_access import ELEMENT_METHODS, CppElementAccess
from accls.frontend.cpp_methods import virtual_method
from accls.frontend.cpp_reference_args import reference_positions
from accls.frontend.cpp_types import TypeKind, classify, static_method
from accls.frontend.exprs import node_text, strip_parens
from accls.frontend.model import NEW_OBJECT, AccessKind, Call

__all__ = ["CppCalls"]

# Container methods that construct an element from their arguments, and how
# many arguments (a position) come before the constructor's.
_EMPLACE = {"emplace_back": 0, "emplace_front": 0, "emplace": 1, "emplace_hint": 1}


class CppCalls(CppElementAccess):
    """The C++ walk's calls: what an operator, method or constructor call does."""

    def _operator_call(
        self, node: Node, first: Node, op: str, args: list[Node], depth: int
    ) -> None:
        """An overloaded operator: a call of `CLASS::operator@` on its operands."""
        owner = self.type_of(first)
        if owner.builtin:  # `2.0 * v`: the operator of the class operand
            found = (
                self.type_of(a) for a in args if a.type != "subscript_argument_list"
            )
            owner = next((t for t in found if not t.builtin), owner)
        if owner.kind is TypeKind.STREAM:
            name = f"std::stream::operator{op}"
        elif owner.kind is TypeKind.CLASS and f"operator{op}" in self.scope.operators:
            name = f"operator{op}"  # a free operator of the file: its summary
        elif owner.kind in (TypeKind.CLASS, TypeKind.CONTAINER) and owner.name:
            name = self._dispatched(owner.name, f"operator{op}")
        else:
            name = f"auto::operator{op}"
        self._record_call(node, name, tuple(args))
        for arg in args:
            if arg.type != "subscript_argument_list":
                self.expr(arg, depth + 1)
            else:
                for child in arg.named_children:
                    self.expr(child, depth + 1)

    def _dispatched(self, cls: str, method: str) -> str:
        """The name of a call of `cls::method`: `virtual ..` if an override may run."""
        if virtual_method(self.scope, cls, method):
            return f"virtual {cls}::{method}"
        return f"{cls}::{method}"

    def _own_method(self, name: str) -> bool:
        """Whether a bare `name(..)` in a method calls a method of its class."""
        info = self.scope.classes.get(self.class_name or "")
        return (
            info is not None
            and name in info.methods
            and name not in self.lambdas
            and self.variable_type(name) is None
        )

    def _method_owner(self, name: str) -> str | None:
        """The class whose method a bare `name(..)` in a method calls, if any.

        The method's own class when it declares `name`; else the nearest
        defined base that does, through bases the file defines and does not
        write as template instances (a dependent base's names are not found).
        """
        if self._own_method(name):
            return self.class_name
        info = self.scope.classes.get(self.class_name or "")
        if info is None or name in self.lambdas or self.variable_type(name):
            return None
        layer, seen = [] if info.template_bases else list(info.bases), set()
        while layer:
            found = [b for b in layer if name in self._methods_of(b)]
            if found:
                return found[0] if len(set(found)) == 1 else None
            following: list[str] = []
            for base in layer:
                cls = self.scope.classes.get(base)
                if cls is None:
                    return None  # an unseen base may declare it
                seen.add(base)
                if cls.template_bases:
                    return None
                following.extend(b for b in cls.bases if b not in seen)
            layer = following
        return None

    def _methods_of(self, cls: str) -> dict[str, str]:
        info = self.scope.classes.get(cls)
        return info.methods if info is not None else {}

    def _base_method(self, fn: Node) -> str | None:
        """`Base::g` named in a method of Base or a class derived from it.

        The name its definition is summarised under (`Base::g`) when `g` is a
        non-static method Base itself declares; None for anything else.
        """
        text = "".join(node_text(fn).split())
        head, _, plain = text.rpartition("::")
        if not head or "<" in text or not self.class_name or self.inlining:
            return None
        owner = head.rsplit("::", 1)[-1]
        info = self.scope.classes.get(owner)
        if info is None or plain not in info.methods or plain in info.statics:
            return None
        todo, seen = [self.class_name], set()
        while todo:  # the class and its bases, transitively
            name = todo.pop()
            if name == owner:
                return f"{owner}::{plain}"
            seen.add(name)
            cls = self.scope.classes.get(name)
            todo.extend(b for b in (cls.bases if cls else ()) if b not in seen)
        return None

    def _library_call(
        self, node: Node, name: str, args: tuple[Node, ...], depth: int
    ) -> None:
        self._record_call(node, name, args)
        for child in node.named_children:
            self.expr(child, depth + 1)

    def _cpp_call(self, node: Node, depth: int, used: bool) -> None:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        arg_nodes = tuple(
            a
            for a in (args.named_children if args is not None else ())
            if a.type != "comment"
        )
        if fn is None:
            return
        fn = strip_parens(fn)
        if fn.type == "field_expression":
            self._method_call(node, fn, arg_nodes, depth)
            return
        base = self._base_method(fn) if fn.type == "qualified_identifier" else None
        if base is not None:
            # `Base::g(x)` in a method: Base's own body on this object, never an
            # override (a qualified name is not dispatched).
            texts = tuple(" ".join(node_text(a).split()) for a in arg_nodes)
            self.call_refs.append(len(self.refs))
            self.calls.append(
                (
                    Call(base, self._span(node), ("this", *texts)),
                    tuple(r.id for r in self._loops),
                )
            )
            for arg in arg_nodes:
                self.expr(arg, depth + 1)
            return
        if fn.type in ("qualified_identifier", "template_function"):
            name = self.callee_name(fn)
            if name == "std::getline" and arg_nodes:
                self._record_call(node, name, arg_nodes)
                for arg in arg_nodes:
                    self.expr(arg, depth + 1)
                return
            self._record_call(node, name, arg_nodes)
            if name in RANGE_OPERATORS and not numeric_operands(
                name, node, self.type_of, lambda t: classify(t, self.scope)
            ):  # `accumulate` of objects calls their `operator+`, unseen
                self._record_call(node, RANGE_OPERATORS[name], arg_nodes)
            for arg in arg_nodes:
                self.expr(arg, depth + 1)
            return
        if self.functional_cast(fn):
            # `Real_t(0.0)`: a conversion to a builtin type, not a call.
            for arg in arg_nodes:
                self.expr(arg, depth + 1)
            return
        if fn.type == "identifier" and self.constructed_class(fn) is not None:
            # `Vec3(x, y, z)`: a temporary; its constructor is a call unless it
            # only stores its arguments in the new object's members.
            cls = node_text(fn)
            if not self.plain_construction(fn):
                self._record_call(node, f"{cls}::{cls}", arg_nodes, NEW_OBJECT)
            for dtor in destructors(cls, self.scope):  # the temporary dies
                self._record_call(node, dtor, (), NEW_OBJECT)
            for arg in arg_nodes:
                self.expr(arg, depth + 1)
            return
        owner = self._method_owner(node_text(fn)) if fn.type == "identifier" else None
        if owner is not None:
            # `helper(x)` in a method: `this->helper(x)`, the object first; the
            # method of its class, or of the nearest base that declares it.
            name = node_text(fn)
            info = self.scope.classes[owner]
            texts = tuple(" ".join(node_text(a).split()) for a in arg_nodes)
            self.call_refs.append(len(self.refs))
            self.calls.append(
                (
                    Call(
                        self._dispatched(owner, name),
                        self._span(node),
                        texts if name in info.statics else ("this", *texts),
                    ),
                    tuple(r.id for r in self._loops),
                )
            )
            for arg in arg_nodes:
                self.expr(arg, depth + 1)
            return
        if fn.type == "identifier":
            name = node_text(fn)
            lambda_body = self.lambdas.get(name)
            if lambda_body is not None:
                self.inline_lambda(node, lambda_body, arg_nodes, depth)
                return
            var_type = self.variable_type(name)
            if var_type is not None and not var_type.builtin:
                # A functor or a closure kept elsewhere: `f(x)` calls operator().
                if not self.operator_place(node, AccessKind.READ, None, depth):
                    self._operator_call(node, fn, "()", [fn, *arg_nodes], depth)
                return
            if self._reference_call(node, name, arg_nodes, depth):
                return
        super().expr(node, depth, used)

    def _reference_call(
        self, node: Node, name: str, args: tuple[Node, ...], depth: int
    ) -> bool:
        """`bump(a[i])` of `bump(double &)`: a call passing `&a[i]`; False if not."""
        declared = self.scope.reference_params.get(name)
        if not declared or name in self.macros.functions or self.variable_type(name):
            return False
        bound = {
            k
            for k in reference_positions(declared, len(args))
            if self.type_of(args[k]).builtin and not self.type_of(args[k]).pointer
        }
        if not bound:
            return False
        texts = tuple(
            ("&" if k in bound else "") + " ".join(node_text(a).split())
            for k, a in enumerate(args)
        )
        self.call_refs.append(len(self.refs))
        self.calls.append(
            (Call(name, self._span(node), texts), tuple(r.id for r in self._loops))
        )
        for k, arg in enumerate(args):
            if k not in bound:
                self.expr(arg, depth + 1)
                continue
            self._escaping = True  # the place's address escapes, as for `&a[i]`
            self.lvalue(arg, AccessKind.UPDATE, None, depth + 1)
            self._escaping = False
        return True

    def _new_object(self, node: Node, depth: int) -> None:
        """`new T(args)`: the allocation, then `T::T` on the new object."""
        self._library_call(node, "operator new", (), depth)
        kind = node.child_by_field_name("type")
        info = self.scope.classes.get(node_text(kind)) if kind is not None else None
        if kind is None or info is None or info.plain_constructors:
            return
        args = node.child_by_field_name("arguments")
        arg_nodes = tuple(
            a
            for a in (args.named_children if args is not None else ())
            if a.type != "comment"
        )
        cls = node_text(kind)
        self._record_call(node, f"{cls}::{cls}", arg_nodes, NEW_OBJECT)

    def _deleted(self, node: Node, depth: int) -> None:
        """`delete p`, `delete[] p`: the destructors of what `p` points to."""
        self._library_call(node, "operator delete", tuple(node.named_children), depth)
        pointer = next((c for c in node.named_children if c.type != "comment"), None)
        if pointer is None:
            return
        kind = self.type_of(pointer)
        if kind.pointer:
            for dtor in destructors(kind.element, self.scope):
                self._record_call(node, dtor, (pointer,))  # `this` is `*p`

    def _method_call(
        self, node: Node, fn: Node, args: tuple[Node, ...], depth: int
    ) -> None:
        """`obj.m(args)`: a library method, or a call of `CLASS::m` with obj first."""
        obj = fn.child_by_field_name("argument")
        method = fn.child_by_field_name("field")
        if obj is None or method is None:
            return
        owner = self.object_type(obj, node_text(fn))
        name = node_text(method).split("<", 1)[0]
        if owner.kind is TypeKind.CONTAINER and name in ELEMENT_METHODS:
            self._element_access(node, AccessKind.READ, depth)
            return
        if self.accessor_place(node, AccessKind.READ, None, depth):
            return
        if owner.kind is TypeKind.STREAM:
            qualified = f"std::stream::{name}"
        elif owner.kind is TypeKind.CONTAINER or owner.name:
            qualified = self._dispatched(owner.name, name)
        else:
            qualified = f"auto::{name}"
        inner = strip_parens(obj)
        made = inner.child_by_field_name("function")
        if (
            inner.type == "call_expression"
            and made is not None
            and self.constructed_class(made) is not None
        ):
            # `P(x).m()`: the method works on the temporary just constructed.
            self._record_call(node, qualified, args, NEW_OBJECT)
        else:  # `o.f(a)` of a static `f` passes `a` alone (`o` is only evaluated)
            static = static_method(self.scope, owner.name, name)
            self._record_call(node, qualified, args if static else (obj, *args))
        if owner.kind is TypeKind.CONTAINER and name in _EMPLACE:
            self._elements_built(node, owner.element, args[_EMPLACE[name] :])
        self._elements_counted(node, owner, name, args)
        self._elements_copied(node, owner, name, obj, args)
        if owner.kind is TypeKind.CONTAINER and name in DESTROYING_METHODS:
            for dtor in destructors(owner.element, self.scope):
                self._record_call(node, dtor, (), NEW_OBJECT)  # removed or moved
        self._object_read(obj, depth)
        for arg in args:
            self.expr(arg, depth + 1)

    def _object_read(self, obj: Node, depth: int) -> None:
        """The object a method is called on: its own reference, not its fields."""
        inner = strip_parens(obj)
        if inner.type == "this":
            return
        if inner.type == "identifier":
            self.identifier(inner, AccessKind.READ)
        else:
            self.expr(inner, depth + 1)
