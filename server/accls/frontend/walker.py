"""Walk a function body in evaluation order, recording references and loops."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from accls.frontend.decls import declared_vars
from accls.frontend.exprs import (
    MAX_DEPTH,
    node_text,
    operands,
    span_of,
    strip_parens,
    to_poly,
)
from accls.frontend.macros import MacroTable, expand_calls
from accls.frontend.model import (
    AccessKind,
    Call,
    Directive,
    Exit,
    ExitKind,
    RedOp,
    Ref,
    Region,
    Span,
    Subscript,
    Var,
)
from accls.frontend.pragmas import parse_directive
from accls.frontend.reductions import assignment_reduction, if_minmax
from accls.frontend.tsparser import parse_snippet

__all__ = ["FunctionWalk", "LoopRecord", "attached_pragmas"]

_EXIT_CALLS = frozenset({"exit", "abort", "_exit", "quick_exit", "longjmp"})
_MAX_LOOP_DEPTH = 64


@dataclass(slots=True)
class LoopRecord:
    """What the walk saw of one `for` statement; turned into a Loop later."""

    node: Node
    id: int
    outer_loops: tuple[int, ...]
    context: tuple[int, ...]
    ref_start: int
    call_start: int
    decl_start: int
    pragmas: tuple[Directive, ...]
    regions: tuple[Region, ...]
    block: int = -1  # the block the loop is a statement of; -1 if none
    ref_end: int = 0
    call_end: int = 0
    # Set by a `continue` or `break` in this loop's body: what follows it in the
    # same iteration may not run, so it is conditional.
    skip_mark: int | None = None
    opaque: bool = False  # part of the body was too deep to walk
    decl_end: int = 0
    exits: list[Exit] = field(default_factory=list)
    children: list[LoopRecord] = field(default_factory=list)


def _pragma_of(node: Node) -> Directive | None:
    if node.type not in ("preproc_call", "preproc_directive"):
        return None
    text = node_text(node)
    if not text.lstrip().startswith("#"):
        return None
    return parse_directive(text, span_of(node))


def _mutual_exclusion(directive: Directive) -> bool:
    """True for `atomic ...` and `critical`: updates inside never race."""
    first = directive.name.split()[0] if directive.name else ""
    return first in ("atomic", "critical")


def _trailing_conditional_pragmas(node: Node) -> list[Directive]:
    """Pragmas that end a branch of an `#if`/`#ifdef` block, in source order."""
    if not node.type.startswith("preproc_if"):
        return []
    found: list[Directive] = []
    branch: Node | None = node
    while branch is not None:
        fields = ("name", "condition", "alternative")
        skip = [branch.child_by_field_name(f) for f in fields]
        body = [
            c
            for c in branch.named_children
            if c.type != "comment" and not any(c == other for other in skip)
        ]
        tail: list[Directive] = []
        for child in reversed(body):
            directive = _pragma_of(child)
            if directive is None:
                break
            tail.append(directive)
        found.extend(reversed(tail))
        branch = branch.child_by_field_name("alternative")
    return found


def attached_pragmas(node: Node) -> tuple[Directive, ...]:
    """The acc/omp pragmas written directly above a statement, outermost first."""
    found: list[Directive] = []
    prev = node.prev_sibling
    while prev is not None:
        if prev.type == "comment":
            prev = prev.prev_sibling
            continue
        directive = _pragma_of(prev)
        if directive is None:
            # `#ifdef X / #pragma ... / #endif` right above: a conditional pragma
            # that the compiler may see, so it counts as written on the statement.
            found.extend(reversed(_trailing_conditional_pragmas(prev)))
            break
        found.append(directive)
        prev = prev.prev_sibling
    return tuple(reversed(found))


class FunctionWalk:
    """One function body: its references, calls, declarations and loop records."""

    def __init__(
        self, name: str | None, macros: MacroTable, params: frozenset[str] = frozenset()
    ) -> None:
        self.name = name
        self.macros = macros
        self.params = params
        self.refs: list[Ref] = []
        self.calls: list[tuple[Call, tuple[int, ...]]] = []
        self.decls: list[Var] = []
        self.nests: list[LoopRecord] = []
        self.exits: list[Exit] = []
        self._ctx: list[int] = []
        self._loops: list[LoopRecord] = []
        self._breakable: list[LoopRecord | None] = []
        self._continuable: list[LoopRecord | None] = []
        self._marked = 0  # loops on the stack with a skip mark
        self._regions: list[Region] = []
        self._tag: tuple[str, RedOp] | None = None
        self._block_id = -1  # the block whose statements are being walked
        self._direct = -1  # start of the statement directly in that block
        self.block_decls: list[tuple[int, Span]] = []
        self._atomic: list[str] = []  # dialects of enclosing atomic/critical constructs
        self._override: Span | None = None
        self._macro_depth = 0

    # ----- recording -------------------------------------------------------
    def _span(self, node: Node) -> Span:
        return self._override if self._override is not None else span_of(node)

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
    ) -> None:
        if reduction is None and self._tag is not None and self._tag[0] == name:
            reduction = self._tag[1]
        self.refs.append(
            Ref(
                name=name,
                kind=kind,
                span=self._span(node),
                subscripts=subscripts,
                reduction=reduction,
                guarded=self._guarded(),
                loops=tuple(rec.id for rec in self._loops),
                context=self._context(),
                deref=deref,
                member=member,
                atomic=self._atomic[-1] if self._atomic else "",
            )
        )

    def _context(self) -> tuple[int, ...]:
        if not self._marked:
            return tuple(self._ctx)
        marks = {r.id: r.skip_mark for r in self._loops if r.skip_mark is not None}
        out: list[int] = []
        for item in self._ctx:
            out.append(item)
            mark = marks.get(item)
            if mark is not None:
                out.append(mark)
        return tuple(out)

    def _skip(self, rec: LoopRecord | None, node: Node) -> None:
        """Mark the rest of `rec`'s iteration as conditional."""
        if rec is not None and rec.skip_mark is None:
            rec.skip_mark = -(node.start_byte + 1)
            self._marked += 1

    def _opaque(self) -> None:
        for rec in self._loops:
            rec.opaque = True

    def _guarded(self) -> bool:
        return bool(self._ctx) and self._ctx[-1] < 0

    def _push_ctx(self, node: Node) -> None:
        self._ctx.append(-(node.start_byte + 1))

    # ----- statements --------------------------------------------------------
    def statement(self, node: Node, depth: int = 0) -> None:
        """Walk one statement (or any node that holds statements)."""
        if depth > MAX_DEPTH:
            self._opaque()
            return
        kind = node.type
        if (
            kind in ("compound_statement", "translation_unit", "ERROR")
            or kind.startswith("preproc_if")
            or kind in ("preproc_else", "preproc_elif", "preproc_elifdef")
        ):
            self._block(node, depth)
        elif kind == "for_statement":
            self._for(node, depth)
        elif kind == "expression_statement":
            for child in node.named_children:
                self.expr(child, depth + 1)
        elif kind == "declaration":
            self._declaration(node, depth)
        elif kind == "if_statement":
            self._if(node, depth)
        elif kind in ("while_statement", "do_statement"):
            self._while(node, depth)
        elif kind == "switch_statement":
            self._switch(node, depth)
        elif kind == "return_statement":
            for child in node.named_children:
                self.expr(child, depth + 1)
            self._exit(ExitKind.RETURN, node)
        elif kind == "break_statement":
            target = self._breakable[-1] if self._breakable else None
            if target is not None:
                target.exits.append(Exit(ExitKind.BREAK, self._span(node)))
                self._skip(target, node)
        elif kind == "continue_statement":
            self._skip(self._continuable[-1] if self._continuable else None, node)
        elif kind == "goto_statement":
            self._exit(ExitKind.GOTO, node)
        elif kind in ("labeled_statement", "case_statement", "else_clause"):
            for child in node.named_children:
                if child.type not in ("statement_identifier",):
                    self.statement(child, depth + 1)
        elif kind.endswith("_expression"):
            self.expr(node, depth + 1)

    def _block(self, node: Node, depth: int) -> None:
        saved = self._block_id
        self._block_id = node.start_byte
        for child in node.named_children:
            self._direct = child.start_byte
            if child.type == "declaration":
                self.block_decls.append((node.start_byte, span_of(child)))
            if child.type == "preproc_include":
                self._opaque()  # code pasted in by the preprocessor is invisible
                continue
            if child.type in ("comment", "preproc_call", "preproc_directive"):
                continue
            if node.type.startswith("preproc_") and child == node.child_by_field_name(
                "name"
            ):
                continue
            if node.type.startswith("preproc_") and child == node.child_by_field_name(
                "condition"
            ):
                continue
            pragmas = attached_pragmas(child)
            if pragmas and child.type != "for_statement":
                pushed = [Region(directive=p, span=span_of(child)) for p in pragmas]
                guards = [p.dialect for p in pragmas if _mutual_exclusion(p)]
                self._regions.extend(pushed)
                self._atomic.extend(guards)
                self.statement(child, depth + 1)
                del self._atomic[len(self._atomic) - len(guards) :]
                del self._regions[len(self._regions) - len(pushed) :]
            else:
                self.statement(child, depth + 1)
        self._block_id = saved

    def _exit(self, kind: ExitKind, node: Node) -> None:
        exit_ = Exit(kind, self._span(node))
        for rec in self._loops:
            rec.exits.append(exit_)
        self.exits.append(exit_)

    def _declaration(self, node: Node, depth: int) -> None:
        for var in declared_vars(node, "local", self.macros):
            self.decls.append(var)
        for child in node.children_by_field_name("declarator"):
            if child.type != "init_declarator":
                continue
            value = child.child_by_field_name("value")
            if value is not None:
                self.expr(value, depth + 1)
            name_node = child.child_by_field_name("declarator")
            while name_node is not None and name_node.type not in ("identifier",):
                name_node = name_node.child_by_field_name("declarator")
            if name_node is not None:
                self._ref(name_node, node_text(name_node), AccessKind.WRITE)

    def _if(self, node: Node, depth: int) -> None:
        cond = node.child_by_field_name("condition")
        then = node.child_by_field_name("consequence")
        other = node.child_by_field_name("alternative")
        found = if_minmax(node)
        saved = self._tag
        if found is not None:
            self._tag = found
        if cond is not None:
            self.expr(cond, depth + 1)
        for branch in (then, other):
            if branch is None:
                continue
            self._push_ctx(branch)
            self.statement(branch, depth + 1)
            self._ctx.pop()
        self._tag = saved

    def _while(self, node: Node, depth: int) -> None:
        cond = node.child_by_field_name("condition")
        body = node.child_by_field_name("body")
        self._push_ctx(node)
        self._breakable.append(None)
        self._continuable.append(None)
        if node.type == "while_statement" and cond is not None:
            self.expr(cond, depth + 1)
        if body is not None:
            self.statement(body, depth + 1)
        if node.type == "do_statement" and cond is not None:
            self.expr(cond, depth + 1)
        self._continuable.pop()
        self._breakable.pop()
        self._ctx.pop()

    def _switch(self, node: Node, depth: int) -> None:
        cond = node.child_by_field_name("condition")
        body = node.child_by_field_name("body")
        if cond is not None:
            self.expr(cond, depth + 1)
        self._push_ctx(node)
        self._breakable.append(None)
        if body is not None:
            self.statement(body, depth + 1)
        self._breakable.pop()
        self._ctx.pop()

    def _for(self, node: Node, depth: int) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        body = node.child_by_field_name("body")
        if init is not None:
            if init.type == "declaration":
                self._declaration(init, depth)
            else:
                self.expr(init, depth + 1)
        if len(self._loops) >= _MAX_LOOP_DEPTH:
            # Too deep to model separately: still walked, as part of the outer loops.
            self._push_ctx(node)
            self._breakable.append(None)
            self._continuable.append(None)
            for part in (cond, body, update):
                if part is not None:
                    self.statement(part, depth + 1)
            self._continuable.pop()
            self._breakable.pop()
            self._ctx.pop()
            return
        rec = LoopRecord(
            node=node,
            id=node.start_byte,
            outer_loops=tuple(r.id for r in self._loops),
            context=tuple(self._ctx),
            ref_start=len(self.refs),
            call_start=len(self.calls),
            decl_start=len(self.decls),
            pragmas=attached_pragmas(node),
            regions=tuple(self._regions),
            block=self._block_id if self._direct == node.start_byte else -1,
        )
        (self._loops[-1].children if self._loops else self.nests).append(rec)
        self._loops.append(rec)
        self._breakable.append(rec)
        self._continuable.append(rec)
        self._ctx.append(rec.id)
        pushed = [Region(directive=p, span=span_of(node)) for p in rec.pragmas]
        self._regions.extend(pushed)
        if cond is not None:
            self.expr(cond, depth + 1)
        if body is not None:
            self.statement(body, depth + 1)
        if update is not None:
            self.expr(update, depth + 1)
        del self._regions[len(self._regions) - len(pushed) :]
        self._ctx.pop()
        self._continuable.pop()
        self._breakable.pop()
        if rec.skip_mark is not None:
            self._marked -= 1
        self._loops.pop()
        rec.ref_end = len(self.refs)
        rec.call_end = len(self.calls)
        rec.decl_end = len(self.decls)

    # ----- expressions -------------------------------------------------------
    def expr(self, node: Node, depth: int = 0) -> None:
        """Walk an expression, recording reads, writes and calls in order."""
        if depth > MAX_DEPTH:
            self._opaque()
            return
        kind = node.type
        if kind == "identifier":
            self._ref(node, node_text(node), AccessKind.READ)
        elif kind == "assignment_expression":
            self._assignment(node, depth)
        elif kind == "update_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None:
                self.lvalue(arg, AccessKind.UPDATE, RedOp.ADD, depth)
        elif kind in ("subscript_expression", "field_expression"):
            self.lvalue(node, AccessKind.READ, None, depth)
        elif kind == "pointer_expression":
            op = node.child_by_field_name("operator")
            arg = node.child_by_field_name("argument")
            if arg is None:
                return
            if op is not None and node_text(op) == "&":
                self.lvalue(arg, AccessKind.UPDATE, None, depth)
            else:
                self.lvalue(node, AccessKind.READ, None, depth)
        elif kind == "call_expression":
            self._call(node, depth)
        elif kind in ("binary_expression", "conditional_expression"):
            self._branching(node, depth)
        elif kind in ("sizeof_expression", "alignof_expression", "offsetof_expression"):
            return
        elif kind == "cast_expression":
            value = node.child_by_field_name("value")
            if value is not None:
                self.expr(value, depth + 1)
        else:
            for child in node.named_children:
                if child.type not in ("type_descriptor", "field_identifier"):
                    self.expr(child, depth + 1)

    def _branching(self, node: Node, depth: int) -> None:
        if node.type == "conditional_expression":
            cond = node.child_by_field_name("condition")
            if cond is not None:
                self.expr(cond, depth + 1)
            for name in ("consequence", "alternative"):
                branch = node.child_by_field_name(name)
                if branch is not None:
                    self._push_ctx(branch)
                    self.expr(branch, depth + 1)
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

    def _assignment(self, node: Node, depth: int) -> None:
        parts = operands(node)
        if parts is None:
            return
        left, op, right = parts
        target = strip_parens(left)
        red: RedOp | None = None
        if target.type == "identifier":
            red = assignment_reduction(op, right, node_text(target))
        elif (
            target.type in ("subscript_expression", "pointer_expression") and op != "="
        ):
            red = assignment_reduction(op, right, "\0")
        saved = self._tag
        if red is not None and target.type == "identifier":
            self._tag = (node_text(target), red)
        self.expr(right, depth + 1)
        self._tag = saved
        kind = AccessKind.WRITE if op == "=" else AccessKind.UPDATE
        self.lvalue(left, kind, red, depth)

    def _call(self, node: Node, depth: int) -> None:
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
            self.expr(body, depth + 1)
            self._macro_depth -= 1
            self._override = saved
            return
        if fn is not None and fn.type != "identifier":
            self.expr(fn, depth + 1)
        self.calls.append(
            (Call(name, self._span(node)), tuple(r.id for r in self._loops))
        )
        if name in _EXIT_CALLS:
            self._exit(ExitKind.EXIT, node)
        if args is not None:
            for arg in args.named_children:
                self.expr(arg, depth + 1)

    def _subscript(self, node: Node) -> Subscript:
        return _subscript_of(node, self.macros)

    def _expand(self, node: Node) -> Node | None:
        """The parsed expansion of a function-like macro call, if it is one."""
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or args is None or self._macro_depth >= 8:
            return None
        macro = self.macros.functions.get(node_text(fn))
        if macro is None:
            return None
        expanded = macro.expand([node_text(a) for a in args.named_children])
        if expanded is None:
            return None
        root = parse_snippet(f"void __accls(void) {{ ({expanded}); }}")
        body = _snippet_expression(root)
        if body is None or body.has_error:
            return None
        return strip_parens(body)

    def _is_cast(self, fn: Node) -> bool:
        if fn.type != "parenthesized_expression" or fn.named_child_count != 1:
            return False
        inner = fn.named_children[0]
        if inner is None or inner.type != "identifier":
            return False
        name = node_text(inner)
        return name not in self.params and all(v.name != name for v in self.decls)

    def lvalue(
        self, node: Node, kind: AccessKind, red: RedOp | None, depth: int
    ) -> None:
        """Record a reference to a place: a scalar, an array element or a field."""
        node = strip_parens(node)
        if node.type == "identifier":
            self._ref(node, node_text(node), kind, reduction=red)
            return
        if node.type == "subscript_expression":
            self._subscripted(node, kind, red, depth)
            return
        if node.type == "field_expression":
            base = node.child_by_field_name("argument")
            inner = strip_parens(base) if base is not None else None
            if inner is not None and inner.type == "subscript_expression":
                self._subscripted(inner, kind, red, depth)
                return
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
        self, node: Node, kind: AccessKind, red: RedOp | None, depth: int
    ) -> None:
        indices: list[Node] = []
        base: Node | None = node
        while base is not None and base.type == "subscript_expression":
            index = base.child_by_field_name("index")
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
        self._ref(node, name, kind, subscripts=subs, reduction=red, member=member)


def _subscript_of(node: Node, macros: MacroTable) -> Subscript:
    text = " ".join(node_text(node).split())
    indirect = _has_subscript(node, macros)
    if indirect:
        return Subscript(text, None, True)
    expanded = expand_calls(text, macros)
    if expanded == text:
        return Subscript(text, to_poly(node), False)
    root = parse_snippet(f"void __accls(void) {{ ({expanded}); }}")
    body = _snippet_expression(root)
    poly = to_poly(body) if body is not None and not body.has_error else None
    return Subscript(text, poly, body is None or _has_subscript(body, macros))


def _snippet_expression(root: Node) -> Node | None:
    """The expression inside `void __accls(void) { (EXPR); }`."""
    fn = root.named_children[0] if root.named_child_count else None
    body = fn.child_by_field_name("body") if fn is not None else None
    stmt = (
        body.named_children[0] if body is not None and body.named_child_count else None
    )
    if (
        stmt is None
        or stmt.type != "expression_statement"
        or not stmt.named_child_count
    ):
        return None
    return stmt.named_children[0]


def _has_subscript(node: Node, macros: MacroTable) -> bool:
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in ("subscript_expression", "pointer_expression"):
            return True
        if cur.type == "call_expression":
            fn = cur.child_by_field_name("function")
            if fn is None or node_text(fn) not in macros.functions:
                return True
        stack.extend(cur.children)
    return False
