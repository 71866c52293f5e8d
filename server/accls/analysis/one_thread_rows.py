"""Per-thread rows that are one row: `tid % s->nrows` with `nrows` the one thread's 1.

`double *row = s->rows + (tid % s->nrows) * s->width;` in a `parallel` region,
`tid` the thread number and `nrows` a field set from `omp_get_num_threads()`
outside any region (one_thread_counts: 1), is `s->rows` for every thread; a
callee of the region's worksharing loop that writes through `row` on every
call (callee_fills' must-write summary, or a counted loop from 0 to a constant:
callee_thread_rows) then has every thread write one
buffer, a race (ACC124). The pointer must be a local set once before the loop,
to a value whose other names the region shares and never sets; `tid` a local
set once to `omp_get_thread_num()`, or the call itself; and the thread number
must fold away, `tid % 1` being 0. A team of one (`num_threads(1)`) has
nothing to race with.
"""

from __future__ import annotations

import re

from accls.analysis.callee_fills import filled_elements
from accls.analysis.callee_scratch import enclosing, every_iteration, shares_iterations
from accls.analysis.callee_thread_rows import row_length
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.one_thread_counts import one_thread_fields
from accls.frontend import Call, Directive, Function, Loop, Region, SourceFile

__all__ = ["one_row_findings"]

_TID = re.compile(r"omp_get_thread_num\s*\(\s*\)")
_SET = re.compile(rb"\s*=\s*([^;{}=][^;{}]*);")
_MEMBER = re.compile(r"\b[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)+")
_MOD_ONE = re.compile(r"tid_\s*%\s*(?:1|\(\s*1\s*\))(?!\w)")
_BASE = re.compile(r"(?<![\w.>])[A-Za-z_]\w*")
_ONE_TEAM = re.compile(r"num_threads\s*\(\s*1\s*\)")


def one_row_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when every thread's row a callee writes is the same row."""
    callee = source.function(name)
    call = next((c for c in loop.calls if c.name == name), None)
    fn = enclosing(loop.span.start_byte, source)
    if callee is None or call is None or fn is None:
        return []
    if len(call.args) != len(callee.params) or not shares_iterations(loop, directive):
        return []
    region = _region(loop, source)
    if region is None or not every_iteration(loop, call, source):
        return []
    if any(_ONE_TEAM.search(t) for t in (directive.text, region.directive.text)):
        return []
    fields: frozenset[str] | None = None
    for k, arg in enumerate(call.args):
        init = _set_once(arg.strip(), fn, source, loop.span.start_byte)
        if init is None or "%" not in init:
            continue  # no row chosen by a remainder
        fields = one_thread_fields(source) if fields is None else fields
        row = _folded(init, fields, fn, source, loop.span.start_byte)
        if row is None or not _shared(row, fn, region):
            continue
        if not filled_elements(callee, k, source) and not row_length(
            callee, k, call.args, source
        ):
            continue  # not written on every call
        param = callee.params[k].name
        write = min(
            (r.span.line for r in callee.refs if r.name == param and r.is_write),
            default=call.span.line,
        )
        reader = _reader(loop, arg.strip(), call, source)
        return [
            finding(
                CALLEE_STATE_RACE,
                call.span,
                var=f"{arg.strip()}[0]",
                what=f"`{init}`, one row for every thread",
                callee=name,
                write=write,
                also=f", read by `{reader[0]}` at line {reader[1]}" if reader else "",
                **({"other": reader[1]} if reader else {}),
                who="every iteration",
                call=call.span.line,
                region=directive.name,
                line=loop.line,
                rule=f"`{arg.strip()}` is `{row}` on every thread: the row count "
                "comes from `omp_get_num_threads()` outside any parallel region, "
                "which is 1 there, so the thread number modulo it is 0",
                fix="count the rows with `omp_get_max_threads()` and hold the team "
                "to it (`num_threads`), or take the count inside the region",
            )
        ]
    return []


def _region(loop: Loop, source: SourceFile) -> Region | None:
    """The innermost `parallel` construct around the loop."""
    around = [
        c
        for c in source.constructs
        if c.directive.dialect == "omp"
        and "parallel" in c.directive.name.split()
        and c.span.start_byte <= loop.span.start_byte < c.span.end_byte
    ]
    return max(around, key=lambda c: c.span.start_byte) if around else None


def _set_once(name: str, fn: Function, source: SourceFile, before: int) -> str | None:
    """The value a local pointer (or integer) is set to once, before byte `before`."""
    var = fn.lookup(name) if name.isidentifier() else None
    sets = [r for r in fn.refs if r.name == name and r.is_write and not r.deref]
    if var is None or var.scope != "local" or len(sets) != 1 or sets[0].subscripts:
        return None
    if sets[0].span.start_byte >= before or sets[0].escapes:
        return None
    value = _SET.match(source.data, sets[0].span.end_byte)
    return " ".join(value.group(1).decode(errors="replace").split()) if value else None


def _folded(
    init: str, fields: frozenset[str], fn: Function, source: SourceFile, before: int
) -> str | None:
    """The value with the thread number folded away, or None if it stays."""
    text = _TID.sub("tid_", init)
    for word in set(_BASE.findall(text)) - {"tid_"}:
        value = _set_once(word, fn, source, before)
        if value is not None and _TID.fullmatch(value):
            text = re.sub(rf"(?<![\w.>]){word}\b", "tid_", text)

    def one(match: re.Match[str]) -> str:
        field = re.split(r"->|\.", match.group(0))[-1].strip()
        return "1" if field in fields else match.group(0)

    text = _MEMBER.sub(one, text)
    folded = _MOD_ONE.sub("0", text)
    if folded == text or "tid_" in folded:
        return None  # nothing folded, or the thread number still counts
    return folded


def _shared(row: str, fn: Function, region: Region) -> bool:
    """True when every variable the value names is the region's shared, unset one."""
    start, end = region.span.start_byte, region.span.end_byte
    for word in set(_BASE.findall(row)):
        var = fn.lookup(word)
        if var is None:
            continue  # a type in a cast, or a macro
        if var.span is not None and start <= var.span.start_byte < end:
            return False  # each thread's own
        if any(
            r.name == word and r.is_write and start <= r.span.start_byte < end
            for r in fn.refs
        ):
            return False
    return True


def _reader(
    loop: Loop, arg: str, call: Call, source: SourceFile
) -> tuple[str, int] | None:
    """Another call of the loop given the row, and the line its callee reads it."""
    for other in loop.calls:
        if other is call or arg not in [a.strip() for a in other.args]:
            continue
        callee = source.function(other.name)
        if callee is None or len(callee.params) != len(other.args):
            continue
        param = callee.params[[a.strip() for a in other.args].index(arg)].name
        lines = [r.span.line for r in callee.refs if r.name == param and r.is_read]
        if lines:
            return other.name, min(lines)
    return None
