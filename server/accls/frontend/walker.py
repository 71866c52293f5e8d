"""Walk a function body in evaluation order, recording references and loops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tree_sitter import Node

from accls.frontend.accesses import ExpressionWalk
from accls.frontend.attach import attached_pragmas, mutual_exclusion
from accls.frontend.decls import declared_vars
from accls.frontend.exprs import MAX_DEPTH, node_text, operands, span_of
from accls.frontend.forward_subst import LoopEntry, forward_substitute
from accls.frontend.model import AccessKind, Directive, Exit, ExitKind, Region, Var
from accls.frontend.nested_functions import nested_name, outer_writes
from accls.frontend.recorder import UNREAD_CALL, LoopRecord
from accls.frontend.reductions import if_minmax
from accls.frontend.secondary_checks import (
    checked_secondaries,
    entry_starts,
    resolved_scalars,
    secondary_candidates,
)
from accls.frontend.secondary_inductions import substitute as substitute_secondaries
from accls.frontend.typetable import TypeTable

__all__ = ["FunctionWalk", "LoopRecord", "attached_pragmas"]

_MAX_LOOP_DEPTH = 64


class FunctionWalk(ExpressionWalk):
    """One function body: its references, calls, declarations and loop records."""

    def statement(self, node: Node, depth: int = 0) -> None:
        """Walk one statement (or any node that holds statements)."""
        if depth > MAX_DEPTH or self._unreadable(node):
            self._opaque()
            self._unknown_call(node, UNREAD_CALL)  # its function's summary too
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
                self.expr(child, depth + 1, used=False)
                parts = (
                    operands(child) if child.type == "assignment_expression" else None
                )
                if parts is not None:
                    self.definition(child, parts[0], parts[2], parts[1])
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
        elif kind == "case_statement":
            # A case can be entered directly: what an earlier case wrote does not
            # cover its reads, so each case is a branch of its own.
            self._push_ctx(node)
            for child in node.children_by_field_name("value"):
                self.expr(child, depth + 1)
            for child in node.named_children:
                if child not in node.children_by_field_name("value"):
                    self.statement(child, depth + 1)
            self._ctx.pop()
        elif kind in ("labeled_statement", "else_clause"):
            for child in node.named_children:
                if child.type not in ("statement_identifier",):
                    self.governed(child, attached_pragmas(child), depth + 1)
        elif kind.endswith("_expression"):
            self.expr(node, depth + 1)
        elif kind == "function_definition":
            # A GNU nested function: each call may write these, any number of times.
            self.nested_functions.add(nested_name(node))
            self._push_ctx(node)
            for written, name in outer_writes(node):
                self._ref(written, name, AccessKind.UPDATE)
            self._ctx.pop()

    def substitute(
        self,
        params: Sequence[Var],
        globals_: Sequence[Var],
        types: TypeTable | None = None,
    ) -> None:
        """Forward-substitute same-iteration scalars into subscripts and bounds.

        `types` resolves typedefs of integers (`typedef long s64Int`), so that
        variables of such types are integer scalars too.
        """
        if types is not None:
            params = resolved_scalars(params, types)
            globals_ = resolved_scalars(globals_, types)
        heads = self.header_decls
        decls = self.decls if types is None else resolved_scalars(self.decls, types)
        records: list[LoopRecord] = []
        stack = list(self.nests)
        while stack:
            rec = stack.pop()
            records.append(rec)
            stack.extend(rec.children)
        done = forward_substitute(
            self.refs,
            self.definitions,
            [*params, *(v for k, v in enumerate(decls) if k not in heads)],
            [decls[k] for k in sorted(heads)],
            globals_,
            [
                (at, loops)
                for at, (_, loops) in zip(self.call_refs, self.calls, strict=True)
            ],
            any(e.kind is ExitKind.GOTO for e in self.exits),
            self.macros.objects,
            [
                LoopEntry(
                    r.id,
                    r.ref_start,
                    r.context,
                    r.outer_loops,
                    _header_names(r),
                    frozenset(
                        i.name
                        for i in (r.secondary.items if r.secondary else ())
                        if i.entry
                    ),
                )
                for r in records
            ],
            frozenset(self.cyclic),
            frozenset(self.unsubstituted),
        )
        self.refs[:] = done.refs
        candidates = [
            entry_starts(r.secondary, done.entries.get(r.id, {}))
            for r in records
            if r.secondary is not None
        ]
        loops = checked_secondaries(
            self.refs,
            [c for c in candidates if c is not None],
            [*params, *decls],
            frozenset(self.unsubstituted),
            self.macros.objects,
        )
        if loops:
            self.refs[:] = substitute_secondaries(self.refs, loops)
        for rec in records:
            rec.bound_values, rec.bound_notes = done.bounds.get(rec.id, ({}, ()))

    def _block(self, node: Node, depth: int) -> None:
        saved, saved_end = self._block_id, self._scope_end
        self._block_id, self._scope_end = node.start_byte, node.end_byte
        for child in node.named_children:
            self._direct = child.start_byte
            if child.type == "declaration":
                self.block_decls.append((node.start_byte, span_of(child)))
            if child.start_point.row + 1 in self.inactive:
                continue  # an #if branch the build does not compile
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
            self.governed(child, attached_pragmas(child), depth + 1)
        self._block_id, self._scope_end = saved, saved_end

    def governed(self, node: Node, pragmas: tuple[Directive, ...], depth: int) -> None:
        """Walk a statement under the pragmas written on it (a loop keeps its own)."""
        if not pragmas or node.type == "for_statement":
            self.statement(node, depth)
            return
        pushed = [Region(directive=p, span=span_of(node)) for p in pragmas]
        guards = [p.dialect for p in pragmas if mutual_exclusion(p)]
        self._regions.extend(pushed)
        self._atomic.extend(guards)
        self.statement(node, depth)
        del self._atomic[len(self._atomic) - len(guards) :]
        del self._regions[len(self._regions) - len(pushed) :]

    def _declaration(self, node: Node, depth: int) -> None:
        for var in declared_vars(node, "local", self.macros):
            self.decls.append(replace(var, scope_end=self._scope_end))
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
                declarator = child.child_by_field_name("declarator")
                if declarator is not None and declarator.type == "identifier":
                    self.definition(child, declarator, value)

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
        if then is not None and other is not None:
            self.two_way.add((-(then.start_byte + 1), -(other.start_byte + 1)))
        for branch in (then, other):
            if branch is None:
                continue
            self._push_ctx(branch)
            self.governed(branch, attached_pragmas(branch), depth + 1)
            self._ctx.pop()
        self._tag = saved

    def _while(self, node: Node, depth: int) -> None:
        cond = node.child_by_field_name("condition")
        body = node.child_by_field_name("body")
        self._push_ctx(node)
        self.cyclic.add(self._ctx[-1])
        self._breakable.append(None)
        self._continuable.append(None)
        if node.type == "while_statement" and cond is not None:
            self.expr(cond, depth + 1)
        if body is not None:
            self.governed(body, attached_pragmas(body), depth + 1)
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

    def _loop_record(self, node: Node) -> LoopRecord:
        """A loop's record, opened where the walk stands now."""
        return LoopRecord(
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

    def _for(self, node: Node, depth: int) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        body = node.child_by_field_name("body")
        head_start = len(self.decls)
        if init is not None:
            if init.type == "declaration":
                first, defined = len(self.decls), len(self.definitions)
                saved_end, self._scope_end = self._scope_end, node.end_byte
                self._declaration(init, depth)
                self._scope_end = saved_end
                self.header_decls.update(range(first, len(self.decls)))
                del self.definitions[defined:]  # a loop variable: its update kills it
            else:
                self.expr(init, depth + 1, used=False)
        if len(self._loops) >= _MAX_LOOP_DEPTH:
            # Too deep to model separately: still walked, as part of the outer loops.
            self._push_ctx(node)
            self.cyclic.add(self._ctx[-1])
            self._breakable.append(None)
            self._continuable.append(None)
            for part in (cond, body, update):
                if part is not None:
                    self.statement(part, depth + 1)
            self._continuable.pop()
            self._breakable.pop()
            self._ctx.pop()
            return
        rec = self._loop_record(node)
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
            self.governed(body, attached_pragmas(body), depth + 1)
        first = len(self.refs)
        if update is not None:
            # The update also runs after a `continue`: nothing is substituted there.
            self.expr(update, depth + 1, used=False)
            self.unsubstituted.update(range(first, len(self.refs)))
        rec.secondary = secondary_candidates(
            node,
            rec.id,
            self.refs,
            (rec.ref_start, first, len(self.refs)),
            self._subscript,
            rec.skip_mark is None,
            (self.decls[head_start : rec.decl_start], self.decls[rec.decl_start :]),
        )
        self._close_loop(rec, pushed)

    def _close_loop(self, rec: LoopRecord, pushed: list[Region]) -> None:
        """Leave a loop's body (regions, context, stacks) and close its record."""
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


def _header_names(rec: LoopRecord) -> frozenset[str]:
    """The identifiers of a loop's initializer and condition."""
    names: set[str] = set()
    stack = [
        part
        for part in (
            rec.node.child_by_field_name("initializer"),
            rec.node.child_by_field_name("condition"),
        )
        if part is not None
    ]
    while stack:
        node = stack.pop()
        if node.type == "identifier":
            names.add(node_text(node))
        stack.extend(node.children)
    return frozenset(names)
