"""A shared scratch array a callee fills in every iteration of a parallel loop.

`double tmp[2];` declared before the loop, then `fill_coeffs(x[i], tmp);
out[i] = tmp[0] + tmp[1];` in each iteration: the callee writes `tmp[0]` and
`tmp[1]` on every call (callee_fills' must-write summary), so every thread
writes the one array the others read, a race (ACC124) as plain as the loop's
own `tmp[0] = ...` (ACC101). The suggester makes the same array `private`
from the same facts; here the pragma is the user's, and a clause or a
declaration that gives each thread its own copy (`private(tmp)`, the array
declared in the enclosing `parallel` region) leaves it alone.
"""

from __future__ import annotations

from accls.analysis.callee_fills import filled_arrays, filled_elements
from accls.analysis.callee_scratch import privatized, shares_iterations
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.nest_views import integer_macros
from accls.analysis.pragma_scope import scope_of
from accls.frontend import Call, Directive, Function, Loop, SourceFile

__all__ = ["filled_scratch_findings"]


def filled_scratch_findings(
    loop: Loop, directive: Directive, source: SourceFile
) -> list[Finding]:
    """ACC124 for each shared local array a callee fills in every iteration."""
    if not loop.calls or not shares_iterations(loop, directive):
        return []
    scope = scope_of(loop, directive, source)
    if scope.all_private:
        return []
    out: list[Finding] = []
    for name in sorted(filled_arrays(loop, source, integer_macros(source.macros))):
        if name in scope.private or privatized(name, loop, directive, source):
            continue
        call = next(c for c in loop.calls if name in c.args)
        callee = source.function(call.name)
        if callee is None:
            continue
        index = call.args.index(name)
        elements = filled_elements(callee, index, source)
        if not elements:
            continue
        write = _first_write_line(callee, index)
        element = f"{name}[{min(elements)}]"
        out.append(
            finding(
                CALLEE_STATE_RACE,
                call.span,
                var=element,
                what=f"`{name}`, one array for every iteration",
                callee=call.name,
                write=write,
                also=_read_after(loop, name, call),
                who="every iteration",
                call=call.span.line,
                region=directive.name,
                line=loop.line,
                rule=f"each call fills `{name}`, declared before the loop and shared "
                "by the threads, which the iterations then read: one thread's "
                "values overwrite another's before it reads them",
                fix=f"add `private({name})` to the directive",
            )
        )
    return out


def _first_write_line(callee: Function, index: int) -> int:
    """The line where `callee` first writes (or hands on) its parameter `index`."""
    param = callee.params[index].name
    lines = [r.span.line for r in callee.refs if r.name == param and r.is_write]
    lines += [c.span.line for c in callee.call_sites if param in c.args]
    return min(lines, default=callee.span.line)


def _read_after(loop: Loop, name: str, call: Call) -> str:
    """`also`: the loop's first read of the array after the call."""
    reads = sorted(
        r.span.line
        for r in loop.refs
        if r.name == name and not r.is_write and r.span.start_byte >= call.span.end_byte
    )
    return f", read at line {reads[0]}" if reads else ""
