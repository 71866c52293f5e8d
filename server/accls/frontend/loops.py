"""Turn loop records from the walk into Loop values: header, nest, liveness."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tree_sitter import Node

from accls.frontend.bounds import limits
from accls.frontend.call_bounds import called_bound
from accls.frontend.exprs import (
    identifiers,
    node_text,
    operands,
    span_of,
    strip_parens,
    to_poly,
)
from accls.frontend.liveness import Liveness, plain_scalar
from accls.frontend.loop_model import Limit, Loop
from accls.frontend.macros import MacroTable
from accls.frontend.model import Ref, Span, Var
from accls.frontend.poly import Poly
from accls.frontend.scopes import outer_refs
from accls.frontend.secondary_inductions import header_inits, header_steps
from accls.frontend.walker import FunctionWalk, LoopRecord

__all__ = ["build_loops"]

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}


@dataclass(frozen=True, slots=True)
class _Header:
    var: str | None = None
    declared: bool = False
    lower: Poly | None = None
    lower_text: str = ""
    upper: Poly | None = None
    upper_text: str = ""
    cond_op: str | None = None
    step: int | None = None
    step_text: str = ""
    unbounded: str = ""  # the condition, when it never tests the variable
    lower_node: Node | None = None
    upper_node: Node | None = None
    # `i < a && i <= b`: every conjunct a bound of the variable, one direction
    conjuncts: tuple[tuple[Node, str], ...] = ()


def _flat(node: Node) -> str:
    return " ".join(node_text(node).split())


def _substituted(h: _Header, values: dict[str, Poly]) -> _Header:
    """The header with forward-substituted scalar values in its bounds."""
    lower = None if h.lower is None else h.lower.substitute(values)
    upper = None if h.upper is None else h.upper.substitute(values)
    return replace(h, lower=lower, upper=upper)


def _header(node: Node) -> _Header:
    init = node.child_by_field_name("initializer")
    cond = node.child_by_field_name("condition")
    steps = header_steps(node)
    inits = header_inits(init)
    var, step, step_text = steps[0] if steps else (None, None, "")
    if var is None and len(inits) == 1:
        var = next(iter(inits))
    if var is None:
        return _Header()
    lower_node, declared = inits.get(var, (None, False))
    upper_node, cond_op = _bound(cond, var)
    return _Header(
        conjuncts=_conjuncts(cond, var) if upper_node is None else (),
        unbounded=(
            _flat(cond) if cond is not None and var not in identifiers(cond) else ""
        ),
        lower_node=lower_node,
        upper_node=upper_node,
        var=var,
        declared=declared,
        lower=to_poly(lower_node) if lower_node is not None else None,
        lower_text=_flat(lower_node) if lower_node is not None else "",
        upper=to_poly(upper_node) if upper_node is not None else None,
        upper_text=_flat(upper_node) if upper_node is not None else "",
        cond_op=cond_op,
        step=step,
        step_text=step_text,
    )


def _range_header(rec: LoopRecord) -> _Header:
    """`for (T x : v)` as `for (index = 0; index < size; ++index)`."""
    size = rec.range_for.size if rec.range_for is not None else ""
    upper = Poly.const(int(size)) if size.isdigit() else None
    if upper is None and _IDENT.fullmatch(size):
        upper = Poly.sym(size)
    return _Header(
        var=rec.range_var,
        declared=True,
        lower=Poly.const(0),
        lower_text="0",
        upper=upper,
        upper_text=size,
        cond_op="<",
        step=1,
        step_text="1",
    )


def _bound(cond: Node | None, var: str) -> tuple[Node | None, str | None]:
    if cond is None:
        return None, None
    cond = strip_parens(cond)
    if cond.type != "binary_expression":
        return None, None
    parts = operands(cond)
    if parts is None or parts[1] not in _FLIP:
        return None, None
    left, oper, right = parts
    if strip_parens(left).type == "identifier" and node_text(strip_parens(left)) == var:
        return right, oper
    if (
        strip_parens(right).type == "identifier"
        and node_text(strip_parens(right)) == var
    ):
        return left, _FLIP[oper]
    return None, None


def _conjuncts(cond: Node | None, var: str) -> tuple[tuple[Node, str], ...]:
    """The bounds of `v < a && v <= b`, when every conjunct bounds `v` one way.

    The loop runs while all hold, and each stops holding for good once `v` passes
    it: the iterations are exactly those inside every bound. A conjunct that does
    not bound `v` (`&& ok`) may end the loop early: then none are read.
    """
    out: list[tuple[Node, str]] = []
    stack = [cond]
    while stack:
        node = stack.pop()
        if node is None:
            return ()
        node = strip_parens(node)
        parts = operands(node) if node.type == "binary_expression" else None
        if parts is not None and parts[1] == "&&":
            stack.extend((parts[2], parts[0]))
            continue
        bound, op = _bound(node, var)
        if bound is None or op not in ("<", "<=", ">", ">="):
            return ()
        out.append((bound, op))
    if len(out) < 2 or len({op[0] for _, op in out}) != 1:
        return ()
    return tuple(out)


_SIMPLE = re.compile(r"[\w\s+\-*/%().>]*")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _opaque_bound(text: str, written: set[str]) -> Poly | None:
    """A bound such as `n/10 + 1` as one invariant symbol, when that is safe.

    Only arithmetic on names the loop never writes qualifies: no calls, no
    subscripts, no side effects. The symbol's text is valid C wherever the loop is.
    """
    if not text or not _SIMPLE.fullmatch(text) or "--" in text or "++" in text:
        return None
    if re.search(r"[A-Za-z_]\w*\s*\(", text):
        return None  # a call
    if set(_IDENT.findall(text)) & written:
        return None
    return Poly.sym(f"({text})")


def _limits(h: _Header, macros: MacroTable) -> tuple[Limit, ...]:
    """Limits for a side whose bound is not one polynomial, when it is exact."""
    if not h.step:
        return ()
    rising = h.step > 0
    out: list[Limit] = []
    if h.lower is None and h.lower_node is not None:
        out.extend(limits(h.lower_node, macros, lower=rising) or ())
    if h.upper is None and h.upper_node is not None and h.cond_op in _FLIP:
        op = h.cond_op
        if op in ("<", "<=", ">", ">="):
            out.extend(limits(h.upper_node, macros, lower=op[0] == ">", op=op) or ())
    ends = h.conjuncts and h.conjuncts[0][1][0] == ("<" if rising else ">")
    if h.upper is None and h.upper_node is None and ends:
        found = [limits(n, macros, lower=op[0] == ">", op=op) for n, op in h.conjuncts]
        if all(f is not None for f in found):  # one missing would widen the range
            out.extend(lim for f in found for lim in f or ())
    return tuple(out)


def _trip_count(h: _Header) -> str | None:
    if h.lower is None or h.upper is None or h.step is None or h.step == 0:
        return None
    step, op = h.step, h.cond_op
    if step > 0 and op in ("<", "!="):
        span = h.upper - h.lower
    elif step > 0 and op == "<=":
        span = h.upper - h.lower + Poly.const(1)
    elif step < 0 and op in (">", "!="):
        span = h.lower - h.upper
    elif step < 0 and op == ">=":
        span = h.lower - h.upper + Poly.const(1)
    else:
        return None
    size = abs(step)
    if size == 1:
        return span.render()
    return f"({(span + Poly.const(size - 1)).render()}) / {size}"


def _perfect(body: Node | None) -> bool:
    if body is None:
        return False
    if body.type == "for_statement":
        return True
    if body.type != "compound_statement":
        return False
    inner = [c for c in body.named_children if c.type != "comment"]
    return len(inner) == 1 and inner[0].type == "for_statement"


def _step_symbol(h: _Header, written: set[str]) -> str:
    """The variable of `v += T` when the loop never writes `T` and rises (`<`)."""
    text = h.step_text
    if h.step is not None or not _IDENT.fullmatch(text) or text in written:
        return ""
    return text if h.cond_op in ("<", "<=") and text != h.var else ""


def _two_way(
    pairs: set[tuple[int, int]], refs: tuple[Ref, ...]
) -> frozenset[tuple[int, int]]:
    """The `if`/`else` branch pairs some reference of the loop lies in."""
    inside = {c for r in refs for c in r.context if c < 0}
    return frozenset(p for p in pairs if p[0] in inside or p[1] in inside)


def build_loops(
    walk: FunctionWalk, function: str | None, globals_: tuple[Var, ...]
) -> tuple[Loop, ...]:
    """Loop values for every nest the walk recorded, children included."""
    liveness = Liveness(walk.refs, frozenset(g.name for g in globals_))

    def build(rec: LoopRecord, outer: list[LoopRecord]) -> Loop:
        node = rec.node
        h = _header(node) if rec.range_for is None else _range_header(rec)
        if rec.bound_values:  # scalars assigned before the loop in the same iteration
            h = _substituted(h, rec.bound_values)
        if h.upper is None and h.upper_node is not None and rec.call_bounds:
            h = replace(h, upper=called_bound(h.upper_node, rec.call_bounds))
        body = node.child_by_field_name("body")
        refs = tuple(walk.refs[rec.ref_start : rec.ref_end])
        written = {r.name for r in refs if r.is_write and plain_scalar(r)}
        if h.upper is None and h.upper_text:
            h = replace(h, upper=_opaque_bound(h.upper_text, written))
        if h.lower is None and h.lower_text:
            h = replace(h, lower=_opaque_bound(h.lower_text, written))
        bound_limits = _limits(h, walk.macros)
        if h.var is not None:
            written.add(h.var)
        # Variables declared in the header or the body die with the loop; a name
        # also written outside their blocks is an outer variable's there.
        inner = walk.decls[rec.decl_start : rec.decl_end]
        stores = (r for r in refs if r.is_write and plain_scalar(r))
        written -= {n for n, found in outer_refs(stores, inner).items() if not found}
        if h.declared and h.var is not None:
            written.discard(h.var)
        bound_names: set[str] = set()
        for poly in (h.lower, h.upper, *(lim.poly for lim in bound_limits)):
            if poly is not None:
                bound_names |= poly.names()
        close = next((c for c in node.children if c.type == ")"), None)
        header_end = close if close is not None else node
        children = tuple(build(child, [*outer, rec]) for child in rec.children)
        return Loop(
            id=rec.id,
            span=span_of(node),
            keyword=span_of(node.children[0]),
            header=Span(
                node.start_byte,
                header_end.end_byte,
                (node.start_point.row, node.start_point.column),
                (header_end.end_point.row, header_end.end_point.column),
            ),
            body=span_of(body) if body is not None else span_of(node),
            function=function,
            var=h.var,
            var_declared=h.declared,
            lower=h.lower,
            lower_text=h.lower_text,
            upper=h.upper,
            upper_text=h.upper_text,
            cond_op=h.cond_op,
            step=h.step,
            step_text=h.step_text,
            step_symbol=_step_symbol(h, written),
            unbounded=h.unbounded,
            limits=bound_limits,
            trip_count=_trip_count(h),
            refs=refs,
            calls=tuple(c for c, _ in walk.calls[rec.call_start : rec.call_end]),
            exits=tuple(rec.exits),
            children=children,
            pragmas=rec.pragmas,
            regions=rec.regions,
            locals=tuple(walk.decls[rec.decl_start : rec.decl_end]),
            perfect=_perfect(body) and rec.range_for is None,
            live_after=liveness.live_after(rec, outer, written),
            volatile_bounds=tuple(sorted(bound_names & written - {h.var or ""})),
            opaque=rec.opaque,
            block=rec.block,
            substituted=rec.bound_notes,
            range_for=rec.range_for,
            two_way=_two_way(walk.two_way, refs),
        )

    return tuple(build(rec, []) for rec in walk.nests)
