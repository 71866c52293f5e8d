"""A callee whose member elements, at a linear variable's offsets, meet.

`#pragma omp parallel for linear(j: 1)` over `emit_pair(o, j, a, b); j += 2;`
with `void emit_pair(stream_t *o, int j, ...) { o->v[j] = a; o->v[j + 1] = b; }`:
iteration k hands the callee `j0 + k`, so it writes `o->v[j0 + k + 1]` as its
second element and iteration k + 1 as its first, through the one array every
iteration reaches (the loop does not move `o`). Two element accesses
`p->F[j + c]` and `p->F[j + c']`, one a write, on every call of a callee called
on every iteration before the body moves `j`, meet exactly when the step divides
`c' - c` (a proved race for any loop of more than `(c' - c) / step` iterations,
as the same pair written in the body is). The loop's own variable, of a
constant step, is such a variable whatever the loop's bounds: `step(s, i)`
writing `s->pos[i]` and reading `s->pos[i + 1]`.

Followed: a function of the file that calls nothing, not the one the loop is in,
called once in the loop outside any branch or construct of the body; a pointer
parameter given a plain name the loop neither writes nor makes private, used only
through its members (`callee_members.member_refs`); a parameter given the linear
variable itself, which the callee does not assign.
"""

from __future__ import annotations

import re

from accls.analysis.callee_members import member_refs
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.findings import Finding, finding
from accls.analysis.pragma_scope import scope_of
from accls.analysis.race_exemptions import linear_offset, linear_steps
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["callee_linear_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")


def _on_every_iteration(call: Call, loop: Loop, source: SourceFile) -> bool:
    start, end, pos = loop.body.start_byte, loop.body.end_byte, call.span.start_byte
    spans = [b.span for b in source.branches if b.span.start_byte > start] + [
        c.span for c in source.constructs
    ]
    return not any(start <= s.start_byte <= pos < s.end_byte <= end for s in spans)


def _pair(refs: list[Ref], param: str, step: int) -> tuple[Ref, Ref, int] | None:
    """(the write, the other access, iterations apart) of two refs that meet."""
    for write in refs:
        first = linear_offset(write, param) if write.is_write else None
        if first is None:
            continue
        for other in refs:
            second = linear_offset(other, param) if other.name == write.name else None
            if second is None or second == first or (second - first) % step:
                continue
            return write, other, abs((second - first) // step)
    return None


def _shared_pointers(
    call: Call, callee: Function, loop: Loop, private: frozenset[str]
) -> list[str]:
    moved = {r.name for r in loop.refs if r.is_write} | {v.name for v in loop.locals}
    return [
        param.name
        for param, arg in zip(callee.params, call.args, strict=False)
        if param.pointers == 1
        and _NAME.fullmatch(arg.strip())
        and arg.strip() not in moved | private
    ]


def callee_linear_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when a callee's elements at a linear variable's offsets meet."""
    steps = linear_steps(directive)
    if loop.var and loop.step:
        steps[loop.var] = loop.step  # the loop's own variable, whatever its bounds
    callee = source.function(name)
    calls = [c for c in loop.calls if c.name == name]
    if directive.dialect != "omp" or not steps or callee is None or len(calls) != 1:
        return []
    if set(directive.name.split()) <= {"simd"} or callee.calls:
        return []
    if callee.span.start_byte <= loop.id < callee.span.end_byte:
        return []
    call = calls[0]
    if not _on_every_iteration(call, loop, source):
        return []
    private = scope_of(loop, directive, source).private
    for param, arg in zip(callee.params, call.args, strict=False):
        var = arg.strip()
        step = steps.get(var, 0)
        if step == 0 or any(r.name == param.name and r.is_write for r in callee.refs):
            continue
        if any(
            r.name == var
            and r.is_write
            and loop.body.start_byte <= r.span.start_byte < call.span.end_byte
            for r in loop.refs
        ):
            continue  # moved before the call: not its linear value
        for pointer in _shared_pointers(call, callee, loop, private):
            found = _pair(member_refs(callee, pointer, source) or [], param.name, step)
            if found is None:
                continue
            write, other, apart = found
            word = "written" if other.is_write else "read"
            return [
                finding(
                    CALLEE_STATE_RACE,
                    call.span,
                    var=write.name,
                    what="an array a member of the structure passed by pointer "
                    "points to",
                    callee=name,
                    write=write.span.line,
                    also=f" and {word} at line {other.span.line}",
                    other=other.span.line,
                    who="every iteration",
                    call=call.span.line,
                    region=directive.name,
                    line=loop.line,
                    rule=f"iteration k hands `{name}` `{var}`'s first value plus "
                    f"{step}*k, so iterations {apart} apart reach one element of "
                    f"`{write.name}`",
                    fix=f"make the step of `linear({var})` the body's step"
                    if var != loop.var
                    else "give each iteration its own elements, or keep the loop "
                    "serial",
                )
            ]
    return []
