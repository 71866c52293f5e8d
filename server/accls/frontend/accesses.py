"""Walk expressions in evaluation order: reads, writes, calls and subscripts."""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from accls.frontend.asm_operands import ASM_CALL, asm_clobbers_memory, asm_operands
from accls.frontend.expr_nodes import acts, cpp_index
from accls.frontend.expression_facts import ExpressionFacts
from accls.frontend.exprs import MAX_DEPTH, node_text, operands, strip_parens
from accls.frontend.model import (
    EXIT_CALLS,
    AccessKind,
    Call,
    ExitKind,
    RedOp,
    Subscript,
)
from accls.frontend.nested_functions import NESTED_CALL
from accls.frontend.reductions import (
    assignment_reduction,
    c_minmax_call,
    element_shift,
    element_update,
)

__all__ = ["ExpressionWalk"]


class ExpressionWalk(ExpressionFacts):
    """The expression half of a function walk."""

    def expr(self, node: Node, depth: int = 0, used: bool = True) -> None:
        """Walk an expression, recording reads, writes and calls in order.

        `used` is False where the expression's value is discarded (a statement,
        the left of a comma): only there can `s += e` or `s++` be a reduction,
        since elsewhere the running value itself is read.
        """
        if depth > MAX_DEPTH:
            self._opaque()
            return
        kind = node.type
        if kind == "identifier":
            if not self.object_macro(node, lambda body: self.expr(body, depth + 1)):
                self._ref(node, node_text(node), AccessKind.READ)
        elif kind == "assignment_expression":
            self._assignment(node, depth, used)
        elif kind == "update_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None:
                red = None if used else RedOp.ADD
                step = self._advance(node, arg, used)
                if step is not None:
                    place = strip_parens(arg)
                    name = node_text(place)
                    self._ref(
                        place, name, AccessKind.UPDATE, reduction=red, advance=step
                    )
                else:
                    self.lvalue(arg, AccessKind.UPDATE, red, depth)
        elif kind == "parenthesized_expression":
            for child in node.named_children:
                self.expr(child, depth + 1, used)
        elif kind == "comma_expression":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is not None:
                self.expr(left, depth + 1, used=False)
            if right is not None:
                self.expr(right, depth + 1, used)
        elif kind in ("subscript_expression", "field_expression"):
            self.lvalue(node, AccessKind.READ, None, depth)
        elif kind == "pointer_expression":
            op = node.child_by_field_name("operator")
            arg = node.child_by_field_name("argument")
            if arg is None:
                return
            if op is not None and node_text(op) == "&":
                place = strip_parens(arg)
                if place.type == "identifier":
                    name = node_text(place)
                    self._ref(place, name, AccessKind.UPDATE, escapes=True)
                else:
                    # `&a[i]`: the element's address escapes; it counts as an
                    # update here, and is marked so summaries can tell.
                    self._escaping = True
                    self._into = self.stored_target(node)
                    self.lvalue(arg, AccessKind.UPDATE, None, depth)
                    self._escaping = False
                    self._into = ""
            else:
                self.lvalue(node, AccessKind.READ, None, depth)
        elif kind == "call_expression":
            self._call(node, depth, used)
        elif kind in ("binary_expression", "conditional_expression"):
            self._branching(node, depth, used)
        elif kind in ("sizeof_expression", "alignof_expression", "offsetof_expression"):
            return
        elif kind == "gnu_asm_expression":
            if asm_clobbers_memory(node):  # may write any memory, as an unknown
                self._unknown_call(node, ASM_CALL)  # call does
            for place, access in asm_operands(node):
                self.lvalue(place, access, None, depth)
        elif kind == "cast_expression":
            value = node.child_by_field_name("value")
            kind_node = node.child_by_field_name("type")
            to_void = kind_node is not None and node_text(kind_node).strip() == "void"
            if value is not None:
                self.expr(value, depth + 1, used and not to_void)
        else:
            for child in node.named_children:
                if child.type not in ("type_descriptor", "field_identifier"):
                    self.expr(child, depth + 1)

    def _branching(self, node: Node, depth: int, used: bool) -> None:
        if node.type == "conditional_expression":
            cond = node.child_by_field_name("condition")
            if cond is not None:
                self.expr(cond, depth + 1)
            for name in ("consequence", "alternative"):
                branch = node.child_by_field_name(name)
                if branch is not None:
                    self._push_ctx(branch)
                    self.expr(branch, depth + 1, used)
                    self._ctx.pop()
            return
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        op = node.child_by_field_name("operator")
        if left is not None:
            self.expr(left, depth + 1)
        if right is not None:
            lazy = op is not None and node_text(op) in ("&&", "||")
            if lazy:
                self._push_ctx(right)
            self.expr(right, depth + 1)
            if lazy:
                self._ctx.pop()

    def _assignment(self, node: Node, depth: int, used: bool) -> None:
        parts = operands(node)
        if parts is None:
            return
        left, op, right = parts
        target = strip_parens(left)
        red: RedOp | None = None
        if used:
            pass  # the running value is read: not a reduction
        elif target.type == "identifier":
            name = node_text(target)
            red = assignment_reduction(
                op, right, name, lambda fn: self.minmax_call(fn, name)
            )
        elif (
            target.type in ("subscript_expression", "pointer_expression") and op != "="
        ):
            red = assignment_reduction(op, right, "\0")
        elif (
            target.type == "subscript_expression"
            and op == "="
            and self.builtin_operands(target)
        ):
            # `a[k] = a[k] + e` is `a[k] += e`: one update, its read not walked.
            found = element_update(target, right)
            shifted = element_shift(target, right) if found is None else None
            if found is not None:
                (red, right), op = found, "+="
            elif shifted is not None:
                op, right = shifted  # `a[k] = a[k] << e` is `a[k] <<= e`
        saved = self._tag
        if red is not None and target.type == "identifier":
            self._tag = (node_text(target), red)
        self.expr(right, depth + 1)
        self._tag = saved
        kind = AccessKind.WRITE if op == "=" else AccessKind.UPDATE
        step = self._advance(node, left, used)
        if step is not None:
            self._ref(target, node_text(target), kind, reduction=red, advance=step)
            return
        count = len(self.refs)
        self.lvalue(left, kind, red, depth)
        if op != "=":
            for k in range(count, len(self.refs)):
                if self.refs[k].kind is AccessKind.UPDATE:
                    self.refs[k] = replace(self.refs[k], update_op=op)
        value = strip_parens(right)
        if (
            op == "="
            and target.type == "identifier"
            and value.type == "identifier"
            and len(self.refs) == count + 1
            and self.refs[-1].name == node_text(target)
        ):
            self.refs[-1] = replace(self.refs[-1], copies=node_text(value))

    def minmax_call(self, fn: Node, target: str) -> RedOp | None:
        """The running extreme `target = fn(target, e)` keeps, if any (see C++'s)."""
        return c_minmax_call(fn)

    def builtin_operands(self, target: Node) -> bool:
        """Whether the operators on `target`'s value are the language's own.

        Always in C; a C++ walk says no for a class type, whose operators are calls.
        """
        return True

    def _call(self, node: Node, depth: int, used: bool = True) -> None:
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is not None and args is not None and self._is_cast(fn):
            # `(DATA_TYPE)(x)`: tree-sitter cannot tell a cast to a typedef from a call.
            for arg in args.named_children:
                self.expr(arg, depth + 1)
            return
        name = node_text(fn) if fn is not None else ""
        body = self._expand(node)
        if body is not None:
            saved = self._override
            self._override = self._span(node)
            self._macro_depth += 1
            self.expr(body, depth + 1, used)
            self._macro_depth -= 1
            self._override = saved
            return
        if fn is not None and fn.type != "identifier":
            self.expr(fn, depth + 1)
        texts = tuple(
            self.argument_place(a)
            for a in (args.named_children if args is not None else ())
            if a.type != "comment"
        )
        if name in self.nested_functions:
            name = f"{NESTED_CALL}{name}"  # resolves to no definition
        self.call_refs.append(len(self.refs))
        self.calls.append(
            (Call(name, self._span(node), texts), tuple(r.id for r in self._loops))
        )
        if name in EXIT_CALLS:
            self._exit(ExitKind.EXIT, node)
        if args is not None:
            for arg in args.named_children:
                self.expr(arg, depth + 1)

    def lvalue(
        self, node: Node, kind: AccessKind, red: RedOp | None, depth: int
    ) -> None:
        """Record a reference to a place: a scalar, an array element or a field."""
        node = strip_parens(node)
        if node.type == "identifier":
            if not self.object_macro(
                node, lambda body: self.lvalue(body, kind, red, depth + 1)
            ):
                self._ref(node, node_text(node), kind, reduction=red)
            return
        if node.type == "subscript_expression":
            self._subscripted(node, kind, red, depth)
            return
        if node.type == "field_expression":
            base = node.child_by_field_name("argument")
            inner = strip_parens(base) if base is not None else None
            if inner is not None and inner.type == "subscript_expression":
                # `a[i].f = e` stores one field: the element's other fields keep
                # what they held, so it counts as a read too (an update). A plain
                # write would let `copyout(a[...])` bring back fields the device
                # never received and let reads of `a[i].g` count as covered.
                if kind is AccessKind.WRITE:
                    kind = AccessKind.UPDATE
                field = node.child_by_field_name("field")
                name = node_text(field) if field is not None else ""
                self._subscripted(inner, kind, red, depth, name)
                return
            root = inner
            while root is not None and root.type == "field_expression":
                root = root.child_by_field_name("argument")
                root = strip_parens(root) if root is not None else None
            if root is not None and (
                root.type not in ("identifier", "this", "subscript_expression")
                or acts(root)
            ):
                # `next(s).v`, `(a + i)->v`: what the path starts from is computed
                # (a call, arithmetic): walk it, or its calls go unseen.
                self.expr(root, depth + 1)
            text = "".join(node_text(node).split())
            self._ref(node, text, kind, reduction=red, member=True)
            return
        if node.type == "pointer_expression":
            arg = node.child_by_field_name("argument")
            if arg is None:
                return
            arg = strip_parens(arg)
            if arg.type == "identifier":
                self._ref(node, node_text(arg), kind, reduction=red, deref=True)
                return
            parts = operands(arg) if arg.type == "binary_expression" else None
            if parts is not None:
                left, oper, right = parts
                if oper == "+" and strip_parens(left).type == "identifier":
                    self.expr(right, depth + 1)
                    sub = self._subscript(right)
                    name = node_text(strip_parens(left))
                    self._ref(
                        node, name, kind, subscripts=(sub,), reduction=red, deref=True
                    )
                    return
            self.expr(arg, depth + 1)
            text = "".join(node_text(arg).split())
            self._ref(node, text, kind, subscripts=(Subscript(text, None),), deref=True)
            return
        if node.type == "call_expression":
            expansion = self._expand(node)
            if expansion is not None:
                saved = self._override
                self._override = self._span(node)
                self._macro_depth += 1
                self.lvalue(expansion, kind, red, depth + 1)
                self._macro_depth -= 1
                self._override = saved
                return
        # Anything else (a call result, a literal): reads, then an unknown place.
        self.expr(node, depth + 1)
        text = "".join(node_text(node).split())
        self._ref(node, text, kind, subscripts=(Subscript(text, None),))

    def _subscripted(
        self,
        node: Node,
        kind: AccessKind,
        red: RedOp | None,
        depth: int,
        field: str = "",
    ) -> None:
        indices: list[Node] = []
        base: Node | None = node
        while base is not None and base.type == "subscript_expression":
            index = base.child_by_field_name("index") or cpp_index(base)
            if index is not None:
                indices.append(index)
            base = base.child_by_field_name("argument")
            base = strip_parens(base) if base is not None else None
        indices.reverse()
        for index in indices:
            self.expr(index, depth + 1)
        if base is None:
            return
        member = base.type == "field_expression"
        if base.type == "identifier" or member:
            name = "".join(node_text(base).split())
        else:
            self.expr(base, depth + 1)
            name = "".join(node_text(base).split())
        subs = tuple(self._subscript(index) for index in indices)
        if base.type == "identifier":
            name, subs = self.row_path(name, subs)
        self._ref(
            node, name, kind, subscripts=subs, reduction=red, member=member, field=field
        )

    def argument_place(self, arg: Node) -> str:
        """A call's argument as text (C++: a row bound to a name is its place)."""
        return " ".join(node_text(arg).split())

    def row_path(
        self, name: str, subs: tuple[Subscript, ...]
    ) -> tuple[str, tuple[Subscript, ...]]:
        """The array and subscripts `name[subs]` reaches (C++: a range-for row)."""
        return name, subs
