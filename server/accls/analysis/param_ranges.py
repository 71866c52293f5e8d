"""The range every call passes to an integer parameter: `rotate(p, q)` from loops.

`static void rotate_cols(int p, int q, ..)` indexes `a[k][p]`: nothing in its
body keeps `p` within the row, so the column might reach into the previous
row. When the file holds every call (call_site_lists: `static`, never named
but in calls) and each passes a literal, or the variable of a loop around the
call whose bounds are literals, integer macros or the variables of loops
further out (`for (p = 0; p < N - 1; p++) for (q = p + 1; q < N; q++)`), the
parameter lies within the union of those ranges: `0 <= p <= N - 2`. A
parameter the function assigns or whose address it takes holds no such range,
nor does a loop variable its loop body assigns.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.call_site_lists import CallSiteLists, callee_of
from accls.frontend import Call, Function, Loop, Poly, SourceFile
from accls.frontend.exprs import expression_poly

__all__ = ["parameter_ranges"]

_DEPTH = 6  # enclosing loops followed outwards


def parameter_ranges(
    fn: Function, source: SourceFile, macros: Mapping[str, int]
) -> list[tuple[str, int, int]]:
    """(parameter, low, high) of each integer parameter every call bounds."""
    kept = [
        (i, p.name)
        for i, p in enumerate(fn.params)
        if not p.pointers and not p.dims and _signed_int(p.type)
        if not any(r.name == p.name and (r.is_write or r.escapes) for r in fn.refs)
    ]
    if not kept:
        return []
    sites = CallSiteLists(source, None).only_called(callee_of(fn)) or []
    calls = [(s.call, s.caller) for s in sites if s.call and s.caller]
    if not calls or len(calls) != len(sites):
        return []  # no call, or a call of another file
    if any(len(call.args) != len(fn.params) for call, _ in calls):
        return []
    out = []
    for index, name in kept:
        spans = []
        for call, caller in calls:
            found = _argument_range(call, index, caller, source, macros)
            if found is None:
                break
            spans.append(found)
        else:
            out.append((name, min(lo for lo, _ in spans), max(hi for _, hi in spans)))
    return out


def _signed_int(type_: str) -> bool:
    """`int` (or `signed int`): an argument converts to it unchanged in range."""
    words = set(type_.split()) - {"const", "register"}
    return words in ({"int"}, {"signed", "int"}, {"signed"})


def _argument_range(
    call: Call,
    index: int,
    caller: Function,
    source: SourceFile,
    macros: Mapping[str, int],
) -> tuple[int, int] | None:
    poly = expression_poly(call.args[index])
    if poly is None:
        return None
    around = [
        loop
        for nest in source.nests
        if nest.function == caller.name
        for loop in nest.walk()
        if loop.body.start_byte <= call.span.start_byte < loop.body.end_byte
    ]
    return _interval(poly, around, caller, macros, _DEPTH)


def _interval(
    poly: Poly,
    around: list[Loop],
    caller: Function,
    macros: Mapping[str, int],
    depth: int,
) -> tuple[int, int] | None:
    """The least and greatest value of an affine `poly` over the loops `around`."""
    poly = poly.substitute({n: Poly.const(v) for n, v in macros.items()})
    if not poly.is_affine or depth <= 0:
        return None
    low = high = poly.constant
    for mono, coeff in poly.terms:
        if not mono:
            continue
        found = _loop_range(mono[0], around, caller, macros, depth)
        if found is None:
            return None
        lo, hi = found
        low += coeff * (lo if coeff > 0 else hi)
        high += coeff * (hi if coeff > 0 else lo)
    return low, high


def _loop_range(
    name: str,
    around: list[Loop],
    caller: Function,
    macros: Mapping[str, int],
    depth: int,
) -> tuple[int, int] | None:
    """The values the variable of the innermost loop around named `name` takes."""
    loops = [loop for loop in around if loop.var == name]
    if not loops:
        return None
    loop = max(loops, key=lambda lp: lp.span.start_byte)  # the innermost
    if loop.lower is None or loop.upper is None or loop.unbounded:
        return None
    if loop.step is None or loop.step == 0:
        return None
    var = caller.lookup(name)
    if var is None or var.scope not in ("local", "param") or var.static:
        return None  # a global: a callee in the body may move it
    if var.address_taken or any(r.name == name and r.escapes for r in caller.refs):
        return None  # `int *ps = &s` anywhere: `*ps = 3` moves it unseen
    if any(
        r.name == name and (r.is_write or r.escapes)
        for r in caller.refs
        if loop.body.start_byte <= r.span.start_byte < loop.body.end_byte
    ):
        return None  # the body moves it: the header's bounds say nothing
    outer = [lp for lp in around if lp.span.start_byte < loop.span.start_byte]
    first = _interval(loop.lower, outer, caller, macros, depth - 1)
    bound = _interval(loop.upper, outer, caller, macros, depth - 1)
    if first is None or bound is None:
        return None
    if loop.step > 0 and loop.cond_op in ("<", "<="):
        last = bound[1] - (1 if loop.cond_op == "<" else 0)
        return first[0], last
    if loop.step < 0 and loop.cond_op in (">", ">="):
        last = bound[0] + (1 if loop.cond_op == ">" else 0)
        return last, first[1]
    return None
