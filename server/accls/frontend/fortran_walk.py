"""Walk a Fortran program unit's statements: loops, branches, exits, directives."""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node

from accls.frontend.exprs import node_text, span_of
from accls.frontend.fortran_concurrent import (
    concurrent_indices,
    concurrent_nest,
    nest_records,
)
from accls.frontend.fortran_directives import directive_of, end_name
from accls.frontend.fortran_exprs import flat, name_of
from accls.frontend.fortran_refs import RefRecorder
from accls.frontend.fortran_regions import Directives
from accls.frontend.fortran_statements import (
    IO,
    QUIET,
    LoopRec,
    bound_nodes,
    is_sentinel,
    loop_head,
)
from accls.frontend.model import (
    AccessKind,
    Branch,
    Call,
    Directive,
    Exit,
    ExitKind,
    Span,
)

__all__ = ["LoopRec", "UnitWalk"]


@dataclass(slots=True)
class UnitWalk:
    """The statements of one program unit, walked once in source order."""

    rec: RefRecorder
    nests: list[LoopRec] = field(default_factory=list)
    dirs: Directives = field(default_factory=Directives)
    branches: list[Branch] = field(default_factory=list)
    unread: list[tuple[Span, str]] = field(default_factory=list)  # loops not modelled
    # `do concurrent` constructs as ref ranges [start, end) and their index names:
    # inside one, those names are its own, not the variables outside.
    scopes: list[tuple[int, int, frozenset[str]]] = field(default_factory=list)
    # Enclosing `do` constructs (None for `do while`/concurrent) with their labels.
    _stack: list[tuple[LoopRec | None, str]] = field(default_factory=list)

    # ----- blocks and directives ----------------------------------------------
    def block(self, nodes: list[Node]) -> None:
        """Statements in order; sentinel comments attach to what follows them."""
        pending: list[Directive] = []
        lines: list[tuple[str, Span]] = []
        atomic_next = ""
        for node in nodes:
            if node.type == "comment":
                text = node_text(node)
                if not is_sentinel(text) and not (lines and text.lstrip()[:2] == "!$"):
                    continue
                lines.append((text, span_of(node)))
                if text.rstrip().endswith("&"):
                    continue
                joined, lines = lines, []
                closing = end_name(joined[0][0])
                if closing is not None:
                    self.dirs.close(closing, joined[-1][1])
                    continue
                directive = directive_of(joined)
                if directive is None:
                    continue
                atomic_next = self.dirs.directive(directive, pending) or atomic_next
                continue
            if node.type in ("do_loop", "do_label_loop"):
                self.do_loop(node, tuple(pending))
            else:
                before = self.rec.atomic
                if atomic_next:
                    self.rec.atomic = atomic_next
                self.statement(node)
                self.rec.atomic = before
            pending = []
            atomic_next = ""

    # ----- statements ---------------------------------------------------------
    def statement(self, node: Node) -> None:
        """One executable statement (or construct)."""
        kind = node.type
        rec = self.rec
        if kind in QUIET:
            return
        if kind == "assignment_statement":
            rec.assignment(node)
        elif kind == "pointer_assignment_statement":
            parts = [c for c in node.named_children if c.type != "comment"]
            if len(parts) >= 2:
                rec.read(parts[-1])
                rec.write(parts[0], escapes=True)
        elif kind == "subroutine_call":
            callee = next(
                (c for c in node.named_children if c.type == "identifier"), None
            )
            args = next(
                (c for c in node.named_children if c.type == "argument_list"), None
            )
            if callee is not None:
                rec.call(node, name_of(callee), args)
            elif node.named_children:
                # `call x(i)%step()`: a type-bound procedure or a procedure
                # pointer, bound at run time: a call we cannot see into, whose
                # object is an argument as well.
                bound = node.named_children[0]
                rec.read(bound)
                rec.call(node, flat(bound), args)
        elif kind in ("if_statement", "elseif_clause", "else_clause"):
            self.if_statement(node)
        elif kind == "select_case_statement":
            self.select(node)
        elif kind == "keyword_statement":
            self.keyword(node)
        elif kind in ("stop_statement", "error_stop_statement"):
            self.exit(ExitKind.EXIT, node)
        elif kind in IO:
            self.io(node)
        elif kind in ("block_construct", "associate_statement"):
            self.block(list(node.named_children))
        elif kind in ("where_statement", "forall_statement"):
            self.masked(node)
        else:
            # Anything else (allocate, open, inquire, ...) is a call we cannot see into.
            word = node.children[0].type if node.children else kind
            rec.calls.append(Call(word, span_of(node), ()))
            for child in node.named_children:
                rec.read(child)

    def if_statement(self, node: Node) -> None:
        """Condition, then each arm in a context of its own."""
        cond = next(
            (c for c in node.named_children if c.type == "parenthesized_expression"),
            None,
        )
        if cond is not None:
            self.rec.read(cond)
        body = [
            c
            for c in node.named_children
            if c is not cond
            and c.type not in ("elseif_clause", "else_clause", "end_if_statement")
        ]
        self._arm(node, body, "if" if node.type != "else_clause" else "else", cond)
        for clause in node.named_children:
            if clause.type in ("elseif_clause", "else_clause"):
                self._arm(clause, [clause], "else", None, nested=True)

    def _arm(
        self,
        node: Node,
        body: list[Node],
        kind: str,
        cond: Node | None,
        *,
        nested: bool = False,
    ) -> None:
        if not body:
            return
        depth = len(self.rec.ctx)
        self.rec.ctx.append(-(body[0].start_byte + 1))
        start, end = body[0], body[-1]
        self.branches.append(
            Branch(
                kind=kind,
                span=Span(
                    start.start_byte,
                    end.end_byte,
                    (start.start_point.row, start.start_point.column),
                    (end.end_point.row, end.end_point.column),
                ),
                condition=flat(cond) if cond is not None else "",
            )
        )
        if nested:
            self.if_statement(node)
        else:
            self.block(body)
        del self.rec.ctx[depth:]

    def select(self, node: Node) -> None:
        """`select case`: the selector, then each case as a branch."""
        for child in node.named_children:
            if child.type == "selector":
                self.rec.read(child)
            elif child.type == "case_statement":
                # `case default` has a `default` keyword node, not a statement.
                body = [
                    c
                    for c in child.named_children
                    if c.type not in ("case_value_range_list", "default")
                ]
                self._arm(child, body, "if", None)

    def masked(self, node: Node) -> None:
        """`where`/`forall`: every assignment is conditional and whole-array."""
        self.rec.ctx.append(-(node.start_byte + 1))
        self.rec.calls.append(Call(node.children[0].type, span_of(node), ()))
        for child in node.named_children:
            if child.type == "assignment_statement":
                self.rec.assignment(child)
            else:
                self.rec.read(child)
        self.rec.ctx.pop()

    def io(self, node: Node) -> None:
        """`print`/`write`/`read`: ordered I/O, as the C library's is."""
        rec = self.rec
        rec.calls.append(Call(IO[node.type], span_of(node), ()))
        for child in node.named_children:
            if child.type == "input_item_list":
                for item in child.named_children:
                    rec.write(item)
            else:
                rec.read(child)

    def keyword(self, node: Node) -> None:
        """`cycle`, `exit`, `return`, `goto`, `continue`."""
        word = node.children[0].type if node.children else ""
        label = next(
            (name_of(c) for c in node.named_children if c.type == "identifier"), ""
        )
        if word in ("cycle", "exit"):
            target = self._target(label)
            if target is None:
                self.exit(ExitKind.GOTO, node)
                return
            mark = -(node.start_byte + 1)
            # `exit` leaves the target and every loop inside it; `cycle` leaves the
            # inner ones and skips the rest of the target's iteration.
            left = self._stack[target:] if word == "exit" else self._stack[target + 1 :]
            for loop, _ in left:
                if loop is not None:
                    loop.exits.append(Exit(ExitKind.BREAK, span_of(node)))
            for loop, _ in self._stack[target:]:
                if loop is not None:
                    self.rec.marks.setdefault(loop.id, mark)
        elif word == "return":
            self.exit(ExitKind.RETURN, node)
        elif word in ("goto", "go"):
            self.exit(ExitKind.GOTO, node)

    def _target(self, label: str) -> int | None:
        if not self._stack:
            return None
        if not label:
            return len(self._stack) - 1
        for pos in range(len(self._stack) - 1, -1, -1):
            if self._stack[pos][1] == label:
                return pos
        return None

    def exit(self, kind: ExitKind, node: Node) -> None:
        """A statement that leaves every enclosing loop."""
        exit_ = Exit(kind, span_of(node))
        for loop, _ in self._stack:
            if loop is not None:
                loop.exits.append(exit_)
        self.rec.exits.append(exit_)

    # ----- loops --------------------------------------------------------------
    def do_loop(self, node: Node, pragmas: tuple[Directive, ...]) -> None:
        """A counted `do`, `do concurrent`, `do while` or endless `do`."""
        head, label, body, control = loop_head(node)
        depth = len(self.rec.ctx)
        ends = [
            c
            for c in node.children
            if c.type == "end_do_label_loop_statement"
            or (
                c.type == "end_do_loop_statement"
                and "do" in flat(c).lower().replace(" ", "")
            )
        ]
        if not ends or any(c.is_missing for c in ends):
            self.unread.append(
                (
                    span_of(head if head is not None else node),
                    "a `do` without its `end do`: where the loop ends is unknown",
                )
            )
            control = None
        if control is not None and control.type == "concurrent_statement":
            assert head is not None
            controls, why = concurrent_nest(head, control, label)
            if controls:
                self._concurrent(node, head, body, controls, pragmas)
                return
            self.unread.append((span_of(node), why))
        start = len(self.rec.refs)
        if control is None or control.type != "loop_control_expression":
            self.branches.append(
                Branch(
                    kind="loop",
                    span=span_of(node),
                    condition=flat(head) if head else "",
                )
            )
            if control is not None:
                self.rec.read(control)
            self.rec.ctx.append(-(node.start_byte + 1))
            self._stack.append((None, label))
            self.block(body)
            self._stack.pop()
            del self.rec.ctx[depth:]
            if control is not None and control.type == "concurrent_statement":
                names = concurrent_indices(control)
                self.scopes.append((start, len(self.rec.refs), names))
            return
        rec = LoopRec(
            node=node,
            id=node.start_byte,
            control=control,
            label=label,
            ref_start=len(self.rec.refs),
            call_start=len(self.rec.calls),
            pragmas=pragmas,
            regions=tuple(self.dirs.open),
            body=body,
        )
        self._attach(rec, node, head, pragmas)
        # The bounds are read once, before the first iteration.
        for part in bound_nodes(control):
            self.rec.read(part)
        self._enter(rec, label)
        self.block(body)
        self._leave(rec)
        del self.rec.ctx[depth:]

    def _concurrent(
        self,
        node: Node,
        head: Node,
        body: list[Node],
        controls: list[Node],
        pragmas: tuple[Directive, ...],
    ) -> None:
        """A `do concurrent` as the `do` nest it means: its last index outermost."""
        depth = len(self.rec.ctx)
        recs = nest_records(node, body, controls, pragmas, tuple(self.dirs.open))
        self._attach(recs[0], node, head, pragmas)
        for k, rec in enumerate(recs):
            rec.ref_start, rec.call_start = len(self.rec.refs), len(self.rec.calls)
            if k == 0:
                # Every bound is evaluated once, before the first iteration.
                for part in controls:
                    for bound in bound_nodes(part):
                        self.rec.read(bound)
            self._enter(rec, "")
        self.block(body)
        for rec in reversed(recs):
            self._leave(rec)
        del self.rec.ctx[depth:]
        names = frozenset(name_of(c.named_children[0]) for c in controls)
        self.scopes.append((recs[0].ref_start, recs[0].ref_end, names))

    def _attach(
        self,
        rec: LoopRec,
        node: Node,
        head: Node | None,
        pragmas: tuple[Directive, ...],
    ) -> None:
        """A loop's place: its directives' constructs, its parent, its branch."""
        for pragma in pragmas:
            self.dirs.construct(pragma, span_of(node))
        outer = [loop for loop, _ in self._stack if loop is not None]
        (outer[-1].children if outer else self.nests).append(rec)
        condition = flat(head) if head else ""
        self.branches.append(
            Branch(kind="loop", span=span_of(node), condition=condition)
        )

    def _enter(self, rec: LoopRec, label: str) -> None:
        """Into a loop's body: its variable set, its context open."""
        first = rec.control.named_children[0] if rec.control.named_children else None
        if first is not None and first.type == "identifier":
            self.rec.add(first, name_of(first), AccessKind.WRITE)
        self.rec.loops.append(rec.id)
        self.rec.ctx.append(rec.id)
        self._stack.append((rec, label))

    def _leave(self, rec: LoopRec) -> None:
        """Out of a loop's body: where its references and calls end."""
        self._stack.pop()
        self.rec.marks.pop(rec.id, None)
        self.rec.loops.pop()
        rec.ref_end = len(self.rec.refs)
        rec.call_end = len(self.rec.calls)
