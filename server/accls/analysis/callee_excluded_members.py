"""A member a loop's callee writes only under exclusion, which a plain read reads.

`push(next, w)` with `void push(queue_t *q, int v) { q->items[q->tail] = v;`
`#pragma omp atomic` / `q->tail++; }` called from a parallel loop: every
iteration updates the caller's `next->tail` atomically, yet reads it plainly
first, and a plain read races with another thread's atomic update. So too
`record(j, i, w)` called in an `ordered` block, bumping `j->count`, while the
loop reads `j->count` before the block: ordered blocks order only each other.

Followed: a function of the file that calls no function of the file and takes
no lock, given a pointer the loop does not move (a plain name, or `&x` of a
shared `x`) for a parameter it does not move; its members without subscripts
(`p->tail`), with the loop's own accesses of the same member. A callee's access
is excluded when the callee puts it in `atomic`, `critical` or `ordered`, or the
call sits in one in the loop. Every write must be excluded, and a read not, on
no `if` arm of the callee.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.callee_wording import callee_what
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.exclusion_words import guarded_read_text
from accls.analysis.findings import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.pragma_scope import scope_of
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["excluded_member_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)")
_EXCLUDING = frozenset({"atomic", "critical", "ordered"})
_LOCKS = re.compile(r"omp_(?:set|test|unset)(?:_nest)?_lock")


def _base(arg: str, loop: Loop, private: frozenset[str]) -> str | None:
    """`q->` for a pointer `q` the loop does not move, `x.` for `&x`; else None."""
    text = arg.strip()
    address = _ADDRESS.fullmatch(text)
    name = address.group(1) if address else text
    if not _NAME.fullmatch(name) or name in {v.name for v in loop.locals}:
        return None
    if any(r.name == name and r.is_write for r in loop.refs):
        return None  # moved by the loop: which object is unknown
    if address is not None and name in private:
        return None  # each thread's own structure
    return f"{name}." if address else f"{name}->"


def _on_every_call(ref: Ref, callee: Function, source: SourceFile) -> bool:
    start, end, pos = callee.span.start_byte, callee.span.end_byte, ref.span.start_byte
    return not any(
        b.kind != "loop" and start <= b.span.start_byte <= pos < b.span.end_byte <= end
        for b in source.branches
    )


def _callee_refs(
    call: Call, callee: Function, loop: Loop, private: frozenset[str]
) -> list[Ref]:
    """The callee's member refs through pointer parameters, renamed to the caller's."""
    out: list[Ref] = []
    for param, arg in zip(callee.params, call.args, strict=False):
        base = _base(arg, loop, private) if param.pointers == 1 else None
        if base is None or any(
            r.name == param.name and r.is_write for r in callee.refs
        ):
            continue
        head = f"{param.name}->"
        for ref in callee.refs:
            rest = ref.name[len(head) :] if ref.name.startswith(head) else ""
            if ref.member and _NAME.fullmatch(rest) and not ref.subscripts:
                out.append(replace(ref, name=base + rest))
    return out


def _call_excluded(call: Call, source: SourceFile) -> bool:
    at = call.span.start_byte
    return any(
        contains(c, at) and first_word(c) in _EXCLUDING for c in source.constructs
    )


def excluded_member_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when the callee's writes of a member are excluded and a read is not."""
    callee = source.function(name)
    calls = [c for c in loop.calls if c.name == name]
    if directive.dialect != "omp" or callee is None or len(calls) != 1:
        return []
    if any(source.function(c) is not None or _LOCKS.fullmatch(c) for c in callee.calls):
        return []
    if any(_LOCKS.fullmatch(c.name) for c in loop.calls):
        return []
    call = calls[0]
    private = scope_of(loop, directive, source).private
    outside = _call_excluded(call, source)
    theirs = _callee_refs(call, callee, loop, private)
    for member in sorted({r.name for r in theirs}):
        mine = [r for r in loop.refs if r.name == member and r.member]
        writes = [r for r in theirs if r.name == member and r.is_write]
        if not writes or any(not (r.atomic or outside) for r in writes):
            continue
        if any(r.is_write and not r.atomic for r in mine):
            continue  # a plain store: left to the member checks
        reads = [
            (r.span.line, r.span.start_byte)
            for r in theirs
            if r.name == member
            and not r.is_write
            and not (r.atomic or outside)
            and _on_every_call(r, callee, source)
        ] + [(r.span.line, r.span.start_byte) for r in mine if not r.atomic]
        if not reads:
            continue
        write = writes[0]
        at = write.span.start_byte if write.atomic else call.span.start_byte
        why, fix = guarded_read_text(member, at, reads[0][0], source)
        return [
            finding(
                CALLEE_STATE_RACE,
                call.span,
                var=member,
                what=callee_what(member, call.args, False),
                callee=name,
                write=write.span.line,
                also=f" and read at line {reads[0][0]}",
                other=reads[0][0],
                who="every iteration",
                call=call.span.line,
                region=directive.name,
                line=loop.line,
                rule=why,
                fix=fix,
            )
        ]
    return []
