"""Fixed elements of shared arrays that the functions a region calls write.

`void bump(void) { a[0] += 1; }` called by every thread of a `parallel` region
writes `a[0]` on every thread: a race unless something around the call keeps the
threads apart. The region's own accesses are placed by the concurrency model;
this gives it the writes its callees make of one element whatever thread runs
them: each subscript, once the call's arguments replace the parameters, an
integer (literals and integer macros). Calls in the callee are followed too
(`bump` calling `inc(0)`), to a small depth, with their arguments.

A write, or a call that leads to one, counts only when it runs on every call:
no branch or `&&`/`?:` of the callee around it (a call must be a statement of
its own), no early exit under a branch, no OpenMP
construct around it but `task`, `taskgroup` (each call makes its task once) and
`critical` (whose name the access then holds). A callee with OpenMP calls other
than queries (`omp_get_thread_num`), or locks, is left alone.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.mhp_callees import is_static
from accls.analysis.mhp_constructs import first_word
from accls.analysis.nest_views import integer_macros
from accls.analysis.races_index import int_at, loop_range
from accls.frontend import Call, Function, Poly, Ref, SourceFile, Span, Subscript

__all__ = ["fixed_element_writes"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_EXPR = re.compile(r"[\d\s+*/%()-]+")
_PASSED = frozenset({"task", "taskgroup"})
_DEPTH = 4
_JUMP = re.compile(rb"\b(?:continue|break|goto|return)\b")


def fixed_element_writes(
    call: Call, callee: Function, source: SourceFile, threadprivate: frozenset[str]
) -> list[tuple[Ref, frozenset[str]]]:
    """The fixed-element writes a call makes, with the `critical` names held.

    Each write's subscripts are integer constants; direct scalar writes of the
    callee are `callee_state`'s, so only deeper calls add scalars here.
    """
    macros = {n: str(v) for n, v in integer_macros(source.macros).items()}
    out: list[tuple[Ref, frozenset[str]]] = []
    _walk(call, callee, source, threadprivate, macros, 0, frozenset(), out)
    return out


def _walk(
    call: Call,
    callee: Function,
    source: SourceFile,
    threadprivate: frozenset[str],
    values: dict[str, str],
    depth: int,
    held: frozenset[str],
    out: list[tuple[Ref, frozenset[str]]],
) -> None:
    params = [p.name for p in callee.params]
    if len(call.args) != len(params) or not _followable(callee, source):
        return
    names = values | {
        p: f"({_expand(a, values)})" for p, a in zip(params, call.args, strict=True)
    }
    statics = [
        v for v in callee.locals if v.static or is_static(callee, v, source.data)
    ]
    static = {v.name for v in statics}
    inits = {v.span.start_byte for v in statics if v.span is not None}
    own = {v.name for v in (*callee.locals, *callee.params)} - static
    arrays = {g.name for g in source.globals if not g.pointers} - own - threadprivate
    arrays |= static - threadprivate
    counted = _counted_loops(callee, source)
    for ref in callee.refs:
        if not ref.is_write or ref.atomic or ref.deref or ref.member:
            continue
        if ref.guarded or any(c < 0 for c in ref.context):
            continue  # under `&&`, `?:` or a branch: maybe not on every call
        if ref.span.start_byte in inits:
            continue  # a static's initializer runs once, not per call
        if ref.name not in arrays or (not ref.subscripts and depth == 0):
            continue  # a direct scalar write is `callee_state`'s
        firsts = _first_values(callee, ref.span, counted)
        inside = _runs_always(callee, ref.span, source, frozenset(counted))
        fixed = _fixed(ref, names | firsts) if firsts is not None else None
        if inside is not None and fixed is not None:
            out.append((fixed, held | inside))
    if depth + 1 >= _DEPTH:
        return
    for inner in callee.call_sites:
        target = source.function(inner.name)
        if target is None or target is callee or inner.name.startswith("omp_"):
            continue
        inside = _runs_always(callee, inner.span, source)
        if inside is None or not _statement(inner.span, source.data):
            continue
        args = tuple(_expand(a, names) for a in inner.args)
        found: list[tuple[Ref, frozenset[str]]] = []
        _walk(
            replace(inner, args=args),
            target,
            source,
            threadprivate,
            dict(values),
            depth + 1,
            held | inside,
            found,
        )
        # Placed at the call the region makes, so the ref keeps its own line.
        out.extend(found)


def _expand(text: str, names: dict[str, str]) -> str:
    """`text` with each name that `names` maps replaced, in one pass."""
    return _NAME.sub(lambda m: names.get(m.group(0), m.group(0)), text)


def _fixed(ref: Ref, names: dict[str, str]) -> Ref | None:
    """`ref` with integer subscripts, None when one is not a known integer."""
    subs: list[Subscript] = []
    for sub in ref.subscripts:
        text = _expand(sub.text, names)
        if not _EXPR.fullmatch(text):
            return None
        value = int_at(text, "_", 0)
        if value is None:
            return None
        subs.append(Subscript(text=str(value), poly=Poly.const(value)))
    return replace(ref, subscripts=tuple(subs))


def _followable(callee: Function, source: SourceFile) -> bool:
    """No OpenMP call but queries, and no early exit under a branch."""
    if any(c.startswith("omp_") and not c.startswith("omp_get_") for c in callee.calls):
        return False
    start, end = callee.span.start_byte, callee.span.end_byte
    branches = [b.span for b in source.branches if start <= b.span.start_byte < end]
    return not any(_in(s, e.span) for e in callee.exits for s in branches)


def _counted_loops(callee: Function, source: SourceFile) -> dict[Span, tuple[str, int]]:
    """Loop body -> (variable, first value) for the callee's loops of known range.

    A loop `for (i = 0; i < N; i++)` with literal or macro bounds runs at least
    once on every call when its range is not empty, and its first iteration
    writes `g[0]` of a `g[i]` in its body whatever thread makes the call.
    """
    start, end = callee.span.start_byte, callee.span.end_byte
    out: dict[Span, tuple[str, int]] = {}
    for loop in source.loops():
        if not start <= loop.span.start_byte < end or loop.var is None:
            continue
        values = loop_range(loop, source)
        text = source.data[loop.body.start_byte : loop.body.end_byte]
        if _JUMP.search(text):
            continue  # `if (k % nt != tid) continue;` may skip the first iteration
        if values and not any(
            r.name == loop.var and r.is_write and _in(loop.body, r.span)
            for r in loop.refs
        ):
            out[loop.body] = (loop.var, values[0])  # its header alone steps it
    return out


def _first_values(
    callee: Function, span: Span, counted: dict[Span, tuple[str, int]]
) -> dict[str, str] | None:
    """The first values of the counted loops around `span`; None on a name clash."""
    around = [v for body, v in counted.items() if _in(body, span)]
    names = {var: str(first) for var, first in around}
    return names if len(names) == len(around) else None


def _runs_always(
    callee: Function,
    span: Span,
    source: SourceFile,
    counted: frozenset[Span] = frozenset(),
) -> frozenset[str] | None:
    """The `critical` names around `span`, None when it may not run on every call.

    The bodies of `counted` loops (of a known, non-empty range) run on every call.
    """
    start, end = callee.span.start_byte, callee.span.end_byte
    if any(
        start <= b.span.start_byte < end
        and _in(b.span, span)
        and not (b.kind == "loop" and b.span in counted)
        for b in source.branches
    ):
        return None
    names: set[str] = set()
    for c in source.constructs:
        if not (start <= c.span.start_byte < end and _in(c.span, span)):
            continue
        word = first_word(c)
        if word == "critical":
            clause = c.directive.clauses[0] if c.directive.clauses else None
            name = (clause.args or "") if clause and not clause.name else ""
            names.add(f"critical:{name.strip()}")
        elif word not in _PASSED:
            return None  # `atomic`, `single`, `master`, worksharing: not followed
    return frozenset(names)


def _statement(span: Span, data: bytes) -> bool:
    """True for a call that is a statement of its own: `f(2);`, not `c && f(2)`."""
    before = data[: span.start_byte].rstrip()
    after = data[span.end_byte :].lstrip()
    return before[-1:] in (b";", b"{", b"}") and after[:1] == b";"


def _in(outer: Span, inner: Span) -> bool:
    return outer.start_byte <= inner.start_byte < outer.end_byte
