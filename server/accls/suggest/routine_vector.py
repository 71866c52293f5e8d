"""`routine vector` for a called function whose own loop is parallel.

An offloaded loop that calls a function of the file marks it `acc routine seq`:
the callee's loop then runs sequentially in each iteration. When that loop is
itself parallel, an expert writes `#pragma acc routine vector` on the function,
`#pragma acc loop vector` on its loop, and `gang` on the calling loop, so that the
callee's iterations spread over the vector lanes of each gang. Only where it is
safe, else the function stays `seq`:

- the function has one loop nest, which the analysis proves parallel with no
  atomics, private arrays or array reductions, and calls no function of the file;
- the file shows every call (a `static` function, or one the program index shows
  no other file calling), each one either directly in the body of an offloaded
  `parallel loop` (not in a loop inside it: that loop may take `vector`) that
  takes `gang`, or in host code of a function with no OpenACC compute construct;
- the function is no routine of another routine (called from device code).
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.frontend import Clause, Function, Loop, Span
from accls.suggest.callee_present import new_acc_kernels, only_called_here
from accls.suggest.clauses import scalar_clauses
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.routines import RoutineEdit
from accls.suggest.suggestion import Suggestion

__all__ = ["vector_routines"]

_COMPUTE = re.compile(rb"#[ \t]*pragma[ \t]+acc[ \t]+(parallel|kernels|serial)\b")
_SEQ = "routine seq"


def _within(inner: Span, outer: Span) -> bool:
    return outer.start_byte <= inner.start_byte < outer.end_byte


def _vector_loop(
    fn: Function, analysis: FileAnalysis, top: Suggestion
) -> tuple[Loop, Pragma] | None:
    """The function's one loop and its `loop vector` pragma, or None."""
    source = analysis.source
    nests = [n for n in source.nests if n.function == fn.name]
    if len(nests) != 1:
        return None
    loop = nests[0]
    facts = analysis.of(loop)
    if (
        not facts.parallel
        or facts.atomics
        or facts.private_arrays
        or facts.private_blocks
        or facts.array_reductions
        or facts.assumptions
        or loop.cond_op == "!="
        or any(source.function(c.name) is not None for c in fn.call_sites)
    ):
        return None
    scalar, _, blocker = scalar_clauses(facts, top.options, {loop.id})
    if blocker is not None:
        return None
    return loop, Pragma(Dialect.OPENACC, "loop", (Clause("vector"), *scalar))


def _callers_ok(
    fn: Function,
    analysis: FileAnalysis,
    tops: list[Suggestion],
    routines: set[str],
) -> bool:
    """Every call of `fn` is at gang level of a top kernel, or in plain host code."""
    source = analysis.source
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name != fn.name:
                continue
            if caller.name == fn.name or caller.name in routines:
                return False
            top = next((t for t in tops if _within(call.span, t.loop.span)), None)
            if top is None:
                body = source.data[caller.span.start_byte : caller.span.end_byte]
                if _COMPUTE.search(body):
                    return False
                continue
            assert top.pragma is not None
            if top.pragma.directive != "parallel loop" or any(
                _within(call.span, inner.span)
                for inner in top.loop.walk()
                if inner.id != top.loop.id
            ):
                return False
    return True


def _gang(pragma: Pragma) -> Pragma:
    """The pragma at `gang` level alone: the callee's loop takes the vector lanes."""
    kept = [c for c in pragma.clauses if c.name not in ("gang", "worker", "vector")]
    return replace(pragma, clauses=(Clause("gang"), *kept))


def vector_routines(
    analysis: FileAnalysis, found: tuple[Suggestion, ...]
) -> tuple[Suggestion, ...]:
    """`found`, with `routine vector` where a called function's loop is parallel."""
    tops = new_acc_kernels(found)
    marked = {e.function for s in tops for e in s.routines}
    routines = {f for f in marked if analysis.source.function(f) is not None}
    loops: dict[str, tuple[Loop, Pragma]] = {}
    for top in tops:
        for edit in top.routines:
            name = edit.function
            fn = analysis.source.function(name)
            if name in loops or fn is None or edit.pragma.directive != _SEQ:
                continue
            if not only_called_here(fn, analysis):
                continue
            if not _callers_ok(fn, analysis, tops, routines):
                continue
            got = _vector_loop(fn, analysis, top)
            if got is not None:
                loops[name] = got
    if not loops:
        return found
    return tuple(_rewrite(s, loops) if s in tops else s for s in found)


def _rewrite(s: Suggestion, loops: dict[str, tuple[Loop, Pragma]]) -> Suggestion:
    names = {e.function for e in s.routines} & set(loops)
    if not names or s.pragma is None:
        return s
    edits: list[RoutineEdit] = []
    for edit in s.routines:
        if edit.function in names:
            edit = replace(edit, pragma=Pragma(Dialect.OPENACC, "routine vector"))
        edits.append(edit)
    reasons = [
        r
        for r in s.reasons
        if not any(r.startswith(f"`#pragma acc routine seq` on `{n}()`") for n in names)
    ]
    for name in sorted(names):
        loop, pragma = loops[name]
        edits.append(
            RoutineEdit(name, loop.keyword.start_byte, pragma, line=loop.span.line)
        )
        reasons.append(
            f"`#pragma acc routine vector` on `{name}()`, `{pragma.render()[8:]}` on "
            f"its loop over `{loop.var}`: that loop has no loop-carried dependence, "
            "so each call spreads it over the vector lanes of the calling gang; "
            "this loop takes `gang`"
        )
    return replace(
        s, pragma=_gang(s.pragma), routines=tuple(edits), reasons=tuple(reasons)
    )
