"""Per-thread rows of one global buffer, carved shorter than a callee writes.

`double *mine = work + tid * (M - 1);` with `tid` the thread number, then
`filter_row(img[r], mine, M)` in every iteration, whose `for (k = 0; k < m;
k++) buf[k] = ...` writes `M` elements: thread 0's row ends at `work[M - 1]`,
where thread 1's begins, so the two threads write one element (ACC124). The
row's start must be `g + e` or `&g[e]` for a global array `g` and `e` linear in
the thread number with a constant step (macros and literals); the callee must
write the parameter at its loop variable on every call, in a loop from 0 to a
constant it is given (a literal, a macro, or a parameter the call passes as
one). A step at least that length keeps the rows apart.
"""

from __future__ import annotations

import re

from accls.analysis.callee_scratch import (
    enclosing,
    every_iteration,
    privatized,
    shares_iterations,
    unconditional,
)
from accls.analysis.callee_state import other_access, threadprivate_names
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.races_index import literal_value, value_at
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["overlapping_rows", "row_length"]

_TID = "omp_get_thread_num()"
_ONE_THREAD = re.compile(r"num_threads\s*\(\s*1\s*\)")
_INITIALIZER = re.compile(rb"\s*=\s*([^;{}]*);")
_ROW = re.compile(r"&\s*([A-Za-z_]\w*)\s*\[(.*)\]|([A-Za-z_]\w*)\s*\+(.*)", re.S)
_COUNTED = re.compile(
    r"for\s*\(\s*(?:int\s+)?(\w+)\s*=\s*0\s*;\s*(\w+)\s*<\s*(\w+)\s*;"
    r"\s*(?:(\w+)\s*\+\+|\+\+\s*(\w+))\s*\)"
)


def _set_once(name: str, fn: Function, source: SourceFile, before: int) -> str | None:
    """The initializer of a local set once, before byte `before`."""
    sets = [r for r in fn.refs if r.name == name and r.is_write and not r.deref]
    if len(sets) != 1 or sets[0].subscripts or sets[0].span.start_byte >= before:
        return None
    init = _INITIALIZER.match(source.data, sets[0].span.end_byte)
    return init.group(1).decode(errors="replace").strip() if init else None


def _thread_row(arg: str, loop: Loop, source: SourceFile) -> tuple[str, int] | None:
    """(the array, the step between threads' rows) of a per-thread row pointer."""
    fn = enclosing(loop.span.start_byte, source)
    if fn is None or not arg.isidentifier():
        return None
    var = fn.lookup(arg)
    if var is None or var.scope != "local" or not var.pointers:
        return None
    text = _set_once(arg, fn, source, loop.span.start_byte)
    match = _ROW.fullmatch(text or "")
    if match is None:
        return None
    name, offset = match.group(1) or match.group(3), match.group(2) or match.group(4)
    arrays = {g.name for g in source.globals if len(g.dims) == 1 and not g.pointers}
    if name not in arrays - threadprivate_names(source) or fn.lookup(name):
        return None
    offset = " ".join(offset.replace(_TID, "tid_").split())
    for word in set(re.findall(r"[A-Za-z_]\w*", offset)) - {"tid_"}:
        init = _set_once(word, fn, source, loop.span.start_byte)
        if init is None or init.replace(" ", "") != _TID:
            continue
        offset = re.sub(rf"\b{word}\b", "tid_", offset)
    first, second = (value_at(offset, "tid_", t, source) for t in (0, 1))
    if "tid_" not in offset or first is None or second is None:
        return None
    return name, second - first


def row_length(
    fn: Function, index: int, args: tuple[str, ...], source: SourceFile
) -> tuple[int, Ref] | None:
    """The elements `[0, n)` the callee writes through parameter `index` per call."""
    param = fn.params[index].name
    if any(r.name == param and r.is_write and not r.subscripts for r in fn.refs):
        return None  # the pointer itself moves
    params = [p.name for p in fn.params]
    for ref in fn.refs:
        if not (ref.name == param and ref.is_write and len(ref.subscripts) == 1):
            continue
        loops = [
            b
            for b in source.branches
            if b.span.start_byte <= ref.span.start_byte < b.span.end_byte
            and fn.span.start_byte <= b.span.start_byte < fn.span.end_byte
        ]
        head = _COUNTED.match(loops[0].condition) if len(loops) == 1 else None
        if head is None or ref.atomic or loops[0].statement != "for":
            continue
        var = head.group(1)
        if {head.group(2), head.group(4) or head.group(5)} != {var}:
            continue
        if ref.subscripts[0].text.strip() != var:
            continue
        keyword = source.data.rfind(
            b"for", fn.span.start_byte, loops[0].span.start_byte
        )
        if keyword < 0 or not unconditional(fn, keyword, source):
            continue
        bound = head.group(3)
        if bound in params:
            if any(r.name == bound and r.is_write for r in fn.refs):
                continue
            bound = args[params.index(bound)]
        length = literal_value(bound, source)
        if length is not None:
            return length, ref
    return None


def overlapping_rows(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when the threads' rows a callee fills overlap."""
    callee = source.function(name)
    call: Call | None = next((c for c in loop.calls if c.name == name), None)
    if callee is None or call is None or len(call.args) != len(callee.params):
        return []
    if not shares_iterations(loop, directive) or not every_iteration(
        loop, call, source
    ):
        return []
    heads = [directive.text] + [
        c.directive.text
        for c in source.constructs
        if c.span.start_byte <= call.span.start_byte < c.span.end_byte
    ]
    if any(_ONE_THREAD.search(t) for t in heads):
        return []  # one thread runs every row
    for k, arg in enumerate(call.args):
        row = _thread_row(arg, loop, source)
        if row is None or privatized(row[0], loop, directive, source):
            continue
        written = row_length(callee, k, call.args, source)
        array, step = row
        if written is None or not 0 < step < written[0]:
            continue
        length, ref = written
        return [
            finding(
                CALLEE_STATE_RACE,
                call.span,
                var=array,
                what="a global array",
                callee=name,
                write=ref.span.line,
                **other_access(callee, ref),
                who="every iteration",
                call=call.span.line,
                region=directive.name,
                line=loop.line,
                rule=f"each thread passes `{arg}`, its row of `{array}` {step} "
                f"elements after the previous thread's, and `{name}` writes "
                f"{length} elements through it, so neighbouring threads write one "
                "element",
                fix=f"space the rows at least {length} elements apart",
            )
        ]
    return []
