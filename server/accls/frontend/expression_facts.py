"""What the expression walk reads off one node: steps, definitions, macros, casts."""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from accls.frontend.expr_nodes import snippet_expression, stored_into, subscript_of
from accls.frontend.exprs import int_literal, node_text, operands, span_of, strip_parens
from accls.frontend.forward_subst import Definition
from accls.frontend.macros import constant_macro
from accls.frontend.model import AccessKind, Advance, Subscript
from accls.frontend.poly import Poly
from accls.frontend.recorder import Recorder
from accls.frontend.tsparser import parse_snippet

__all__ = ["ExpressionFacts"]

_DEFINING = frozenset({"=", "+=", "-="})


class ExpressionFacts(Recorder):
    """The node-level half of the expression walk, below its recursion."""

    def stored_target(self, node: Node) -> str:
        """The plain variable the address `node` computes is stored in, if one."""
        return stored_into(node)

    def _advance(self, node: Node, target: Node, used: bool) -> Advance | None:
        """The constant step `node` gives a plain scalar, if it is one."""
        target = strip_parens(target)
        if target.type != "identifier" or self._macro_depth or self._override:
            return None
        if node.type == "update_expression":
            oper = node.child_by_field_name("operator")
            if oper is None:
                return None
            amount = 1 if node_text(oper) == "++" else -1
            yields_old = node.children[0].type != oper.type
        else:
            parts = operands(node)
            if parts is None or parts[1] not in ("+=", "-="):
                return None
            value = int_literal(node_text(strip_parens(parts[2])))
            if value is None:
                return None
            amount = value if parts[1] == "+=" else -value
            yields_old = False
        parent = node.parent
        statement = (
            span_of(parent)
            if not used
            and parent is not None
            and parent.type == "expression_statement"
            and parent.named_child_count == 1
            else None
        )
        return Advance(
            amount=amount,
            yields_old=yields_old,
            span=span_of(node),
            statement=statement,
        )

    def _subscript(self, node: Node) -> Subscript:
        return subscript_of(node, self.macros)

    def definition(
        self, node: Node, target: Node | None, value: Node | None, op: str = "="
    ) -> None:
        """Note `target = value` (or `+=`, `-=`), just walked, for substitution."""
        if target is None or value is None or self._macro_depth or self._override:
            return
        target = strip_parens(target)
        if target.type != "identifier" or not self.refs or op not in _DEFINING:
            return
        last = self.refs[-1]
        name = node_text(target)
        kind = AccessKind.WRITE if op == "=" else AccessKind.UPDATE
        if last.name != name or last.kind is not kind or last.subscripts:
            return
        sub = self._subscript(value)
        if op != "=":
            if sub.poly is None:
                return  # `j += i % 4` is no value of `i % 4`: nothing to substitute
            # `j += e` is `j = j + (e)`: the earlier value of `j` substitutes in.
            step = sub.poly if op == "+=" else -sub.poly
            text = f"{name} {op[0]} ({' '.join(sub.text.split())})"
            sub = Subscript(text, Poly.sym(name) + step, sub.indirect)
        self.definitions.append(
            Definition(
                write=len(self.refs) - 1,
                name=name,
                value=sub,
                line=node.start_point.row + 1,
            )
        )

    def _expand(self, node: Node) -> Node | None:
        """The parsed expansion of a function-like macro call, if it is one."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or args is None or self._macro_depth >= 8:
            return None
        macro = self.macros.functions.get(node_text(fn))
        if macro is None:
            return None
        texts = [node_text(a) for a in args.named_children]
        # Arguments that are variables here: never a type a cast names.
        names = {v.name for v in self.decls} | set(self.params)
        expanded = macro.expand(texts, frozenset(t for t in texts if t in names))
        if expanded is None:
            return None
        root = parse_snippet(f"void __accls(void) {{ ({expanded}); }}")
        body = snippet_expression(root)
        if body is None or body.has_error:
            return None
        return strip_parens(body)

    def object_macro(self, node: Node, walk: Callable[[Node], None]) -> bool:
        """Walk what the object-like macro named by `node` stands for; False if none.

        `#define PREV a[i - 1]` makes `PREV` a read of `a[i - 1]`, `#define NEXT
        rand()` a call: as a bare name, the loop would look free of both. A macro of
        constants (`#define N 100`) stays a name. One whose text is no expression
        (`do { .. } while (0)`) leaves the loops around it opaque.
        """
        name = node_text(node)
        if (
            name not in self.macros.objects
            or name in self._expanding
            or constant_macro(name, self.macros)
        ):
            return False
        root = parse_snippet(f"void __accls(void) {{ ({self.macros.objects[name]}); }}")
        body = snippet_expression(root)
        if body is None or body.has_error or self._macro_depth >= 8:
            self._opaque()
            return True
        saved = self._override
        self._override = self._span(node)
        self._macro_depth += 1
        self._expanding.add(name)  # cpp never expands a macro inside itself
        try:
            walk(strip_parens(body))
        finally:
            self._expanding.discard(name)
            self._macro_depth -= 1
            self._override = saved
        return True

    def _is_cast(self, fn: Node) -> bool:
        if fn.type != "parenthesized_expression" or fn.named_child_count != 1:
            return False
        inner = fn.named_children[0]
        if inner is None or inner.type != "identifier":
            return False
        name = node_text(inner)
        return name not in self.params and all(v.name != name for v in self.decls)
