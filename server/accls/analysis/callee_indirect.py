"""A callee's update of a global array at an element the data chooses.

`count_bin(bin_of(x[i]))` with `static void count_bin(int b) { hist[b]++; }`
is the histogram `hist[bin_of(x[i])]++` written in the loop itself, one call
away: two iterations whose data fall in one bin update one element at once.
The loop's own version is a warning (ACC109, "two iterations may hit one
element"), since the data may keep the elements apart; so is this one, naming
the callee. The subscript is read with the call's arguments in place of the
callee's parameters (through callees it calls, up to a few deep): one that is
built from the loop variable and constants alone is left to the exact rules
(each iteration its own element, or a proved collision), and one with a
callee's local, a call or another array is the data's choice. No warning for
an update under `atomic`/`critical` (in the callee or around the call), an
array a clause of the loop or its region privatizes, a callee that takes a
lock, or a subscript with the thread number (`part[tid][b]`: a row per
thread).
"""

from __future__ import annotations

import re

from accls.analysis.callee_scratch import enclosing, privatized
from accls.analysis.callee_state import threadprivate_names
from accls.analysis.finding_types import Finding, finding
from accls.analysis.findings import UNPROTECTED_UPDATE
from accls.analysis.mhp_callees import call_excluded
from accls.analysis.nest_views import integer_macros
from accls.frontend import Directive, Function, Loop, Ref, SourceFile

__all__ = ["indirect_update_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_TID = "omp_get_thread_num"
_DEPTH = 3  # callees followed from the loop's call


def _updates(
    fn: Function, names: dict[str, str], source: SourceFile, depth: int
) -> list[tuple[Function, Ref, list[str]]]:
    """Unprotected writes of global arrays, subscripts with the arguments in place."""
    if depth == 0 or any("lock" in c for c in fn.calls):
        return []
    arrays = {g.name for g in source.globals if g.dims and not g.pointers}
    arrays -= threadprivate_names(source) | {v.name for v in (*fn.locals, *fn.params)}

    def put(text: str) -> str:
        return _NAME.sub(lambda m: names.get(m.group(0), m.group(0)), text)

    out = [
        (fn, r, [put(s.text) for s in r.subscripts])
        for r in fn.refs
        if r.is_write and r.subscripts and r.name in arrays and not r.atomic
    ]
    for call in fn.call_sites:
        callee = source.function(call.name)
        if callee is None or callee is fn or len(call.args) != len(callee.params):
            continue
        inner = {
            p.name: f"({put(a)})" for p, a in zip(callee.params, call.args, strict=True)
        }
        out += _updates(callee, inner, source, depth - 1)
    return out


def _thread_names(loop: Loop, source: SourceFile) -> set[str]:
    """The caller's locals set from the thread number: `int tid = omp_get_...`."""
    fn = enclosing(loop.span.start_byte, source)
    if fn is None:
        return set()
    out = set()
    for ref in fn.refs:
        if ref.is_write and not ref.subscripts:
            end = source.data.find(b";", ref.span.end_byte)
            if _TID.encode() in source.data[ref.span.end_byte : end]:
                out.add(ref.name)
    return out


def indirect_update_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC109 for a callee's unprotected update of a global at a data index."""
    callee = source.function(name)
    call = next((c for c in loop.calls if c.name == name), None)
    if callee is None or call is None or loop.var is None:
        return []
    if len(call.args) != len(callee.params) or call_excluded(loop, call, source):
        return []
    if callee.span.start_byte <= loop.span.start_byte < callee.span.end_byte:
        return []  # recursion through the loop's own function
    names = {p.name: f"({a})" for p, a in zip(callee.params, call.args, strict=True)}
    known = {loop.var} | set(integer_macros(source.macros))
    tids = _thread_names(loop, source) | {_TID}
    for writer, ref, texts in _updates(callee, names, source, _DEPTH):
        used = {n for t in texts for n in _NAME.findall(t)}
        if not used - known or used & tids:
            continue  # the loop variable's own element, or a row per thread
        if privatized(ref.name, loop, directive, source):
            continue
        return [
            finding(
                UNPROTECTED_UPDATE,
                ref.span,
                ref=f"{ref.render()}` in `{writer.name}()",
                write=ref.span.line,
                line=loop.line,
                dialect=directive.dialect,
                call=call.span.line,
            )
        ]
    return []
