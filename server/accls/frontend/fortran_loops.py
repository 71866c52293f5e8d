"""Fortran `do` loop records as Loop values: inclusive bounds, steps, liveness."""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Node

from accls.frontend.exprs import span_of
from accls.frontend.fortran_exprs import flat, fortran_poly, name_of
from accls.frontend.fortran_statements import LoopRec
from accls.frontend.fortran_walk import UnitWalk
from accls.frontend.liveness import FORTRAN_REPEATS, repeat_ref_starts
from accls.frontend.loop_model import Loop
from accls.frontend.model import Call, Ref, Region, Span
from accls.frontend.poly import Poly

__all__ = ["build_fortran_loops"]


def _control(rec: LoopRec) -> tuple[str | None, list[Node]]:
    """The do variable and its [lower, upper, step?] expressions."""
    control = rec.control
    parts = [c for c in control.named_children if c.type != "comment"]
    if not parts or parts[0].type != "identifier":
        return None, []
    return name_of(parts[0]), parts[1:]


def _point(node: Node, end: bool = False) -> tuple[int, int]:
    point = node.end_point if end else node.start_point
    return (point.row, point.column)


def _between(first: Node, last: Node) -> Span:
    return Span(first.start_byte, last.end_byte, _point(first), _point(last, True))


def _scalar(ref: Ref) -> bool:
    return not ref.subscripts and not ref.member


def build_fortran_loops(
    walk: UnitWalk,
    function: str,
    outside: frozenset[str],
    regions: Mapping[int, Region],
) -> tuple[Loop, ...]:
    """Loop values for every nest of the walk; `outside`: names the caller sees."""
    refs = walk.rec.refs
    calls: list[Call] = walk.rec.calls
    constructs = walk.scopes  # `do concurrent` ranges: their index names are theirs

    def first_use(name: str, start: int, stop: int, ctx: tuple[int, ...]) -> bool:
        """Whether `name` is read in refs[start:stop] before a write on every path."""
        maybe: list[tuple[int, ...]] = []  # contexts of writes that may not run
        inside = [(a, b) for a, b, names in constructs if name in names]
        for at, ref in enumerate(refs[start:stop], start):
            if ref.name != name or not _scalar(ref):
                continue
            if any(a <= at < b for a, b in inside):
                continue
            if ref.is_read and not any(ref.context[: len(w)] == w for w in maybe):
                return True
            if ref.is_write:
                if ctx[: len(ref.context)] == ref.context:
                    return False
                maybe.append(ref.context)
        return False

    def live_after(
        rec: LoopRec, outer: list[LoopRec], written: set[str]
    ) -> tuple[str, ...]:
        context = _context_of(rec)
        live: set[str] = set()
        for name in written:
            if name in outside or first_use(name, rec.ref_end, len(refs), context):
                live.add(name)
                continue
            # The next iteration of an enclosing loop, `do while` included, may
            # read it before this loop.
            again = repeat_ref_starts(rec.node, refs, rec.ref_start, FORTRAN_REPEATS)
            starts = {o.ref_start for o in outer} | set(again)
            if any(first_use(name, s, rec.ref_start, context) for s in starts):
                live.add(name)
        return tuple(sorted(live))

    def _context_of(rec: LoopRec) -> tuple[int, ...]:
        for ref in refs[rec.ref_start : rec.ref_end]:
            if rec.id in ref.context:
                return ref.context[: ref.context.index(rec.id)]
        return ()

    def build(rec: LoopRec, outer: list[LoopRec]) -> Loop:
        node = rec.node
        var, bounds = _control(rec)
        lower_node = bounds[0] if bounds else None
        upper_node = bounds[1] if len(bounds) > 1 else None
        step_node = bounds[2] if len(bounds) > 2 else None
        lower = fortran_poly(lower_node) if lower_node is not None else None
        upper = fortran_poly(upper_node) if upper_node is not None else None
        step: int | None = 1
        step_text = "1"
        if step_node is not None:
            value = fortran_poly(step_node)
            step = value.constant if value is not None and value.is_constant else None
            step_text = flat(step_node)
            if step == 0:
                step = None
        # `do i = a, b` runs a..b inclusive: `<=` rising, `>=` falling; an unknown
        # step leaves the direction, and so the iteration space, unknown.
        cond_op = None if step is None else ("<=" if step > 0 else ">=")
        body_refs = tuple(refs[rec.ref_start : rec.ref_end])
        written = {r.name for r in body_refs if r.is_write and _scalar(r)}
        if var is not None:
            written.add(var)
        bound_names: set[str] = set()
        for poly in (lower, upper):
            if poly is not None:
                bound_names |= poly.names()
        head = next(c for c in node.named_children if c.type == "do_statement")
        do_word = next((c for c in head.children if c.type == "do"), head)
        children = tuple(build(child, [*outer, rec]) for child in rec.children)
        body_nodes = [b for b in rec.body if b.type != "comment"]
        end = node.named_children[-1] if node.named_children else node
        body_span = _between(rec.body[0], rec.body[-1]) if rec.body else span_of(end)
        return Loop(
            id=rec.id,
            span=span_of(node),
            keyword=_between(node, do_word),
            fortran=True,
            # A `do concurrent` level's header is its own index control.
            header=(
                span_of(rec.control)
                if rec.concurrent or rec.in_concurrent
                else _between(node, head)
            ),
            body=body_span,
            function=function,
            var=var,
            lower=lower,
            lower_text=flat(lower_node) if lower_node is not None else "",
            upper=upper,
            upper_text=flat(upper_node) if upper_node is not None else "",
            cond_op=cond_op,
            step=step,
            step_text=step_text,
            trip_count=_trip(lower, upper, step),
            refs=body_refs,
            calls=tuple(calls[rec.call_start : rec.call_end]),
            exits=tuple(rec.exits),
            children=children,
            pragmas=rec.pragmas,
            regions=tuple(regions[i] for i in rec.regions if i in regions),
            perfect=bool(rec.children)
            and (
                rec.children[0].in_concurrent
                or (
                    len(body_nodes) == 1
                    and body_nodes[0].start_byte == rec.children[0].id
                )
            ),
            concurrent=rec.concurrent,
            in_concurrent=rec.in_concurrent,
            live_after=live_after(rec, outer, written),
            volatile_bounds=tuple(sorted(bound_names & written - {var or ""})),
            block=node.parent.start_byte if node.parent is not None else -1,
        )

    return tuple(build(rec, []) for rec in walk.nests)


def _trip(lower: Poly | None, upper: Poly | None, step: int | None) -> str | None:
    if lower is None or upper is None or step is None:
        return None
    span = upper - lower if step > 0 else lower - upper
    span = span + Poly.const(1)
    size = abs(step)
    if size == 1:
        return span.render()
    return f"({(span + Poly.const(size - 1)).render()}) / {size}"
