"""`nowait` loops orphaned in a helper whose results the region's next helper reads.

`#pragma omp parallel { smooth(g); fluxes(g); }` with an `omp for nowait` in
`smooth` and an `omp for` in `fluxes`: a thread leaves the first loop and starts
on the second while others still write what it reads.
"""

from __future__ import annotations

import re
from itertools import pairwise

from accls.analysis.analyze import FileAnalysis
from accls.analysis.findings import NOWAIT_RACE, Finding, finding
from accls.analysis.nowait import worksharing
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import Call, Directive, Function, Loop, Region, SourceFile

__all__ = ["callee_nowait_findings"]

_BASE = re.compile(r"[A-Za-z_]\w*")


def _pragma_between(source: SourceFile, start: int, end: int) -> bool:
    """True if a pragma (a barrier, a construct) sits between two offsets."""
    return b"pragma" in source.data[start:end]


def _branched(source: SourceFile, start: int, inside: int, end: int) -> bool:
    """True if an `if` arm or a loop body within `[inside, end)` encloses `start`."""
    return any(
        inside <= b.span.start_byte <= start < b.span.end_byte <= end
        for b in source.branches
    )


def _orphaned(loop: Loop) -> bool:
    return not any(r.directive.dialect == "omp" for r in loop.regions)


def _caller_name(name: str, fn: Function, call: Call) -> str | None:
    """`name` of `fn` in the caller's words: a parameter becomes its argument."""
    base = _BASE.match(name)
    if base is None:
        return None
    for k, param in enumerate(fn.params):
        if param.name == base.group(0):
            if k >= len(call.args):
                return None
            return call.args[k] + name[base.end() :]
    return None if fn.lookup(base.group(0)) is not None else name


def _team_calls(source: SourceFile, region: Region) -> list[Call]:
    """Calls every thread of the `parallel` region makes, in order, none branched."""
    start, end = region.span.start_byte, region.span.end_byte
    inner = [
        c.span
        for c in source.constructs
        if c is not region and start < c.span.start_byte < end
    ]
    calls = [
        call
        for fn in source.functions
        for call in fn.call_sites
        if start < call.span.start_byte < end
        and not any(s.start_byte <= call.span.start_byte < s.end_byte for s in inner)
        and not _branched(source, call.span.start_byte, start, end)
    ]
    return sorted(calls, key=lambda c: c.span.start_byte)


def _first_loop(
    source: SourceFile, fn: Function, sharing: list[tuple[Loop, Directive]]
) -> tuple[Loop, Directive] | None:
    """The orphaned `omp for` a helper starts with, every thread reaching it."""
    mine = [(lp, d) for lp, d in sharing if lp.function == fn.name and _orphaned(lp)]
    if not mine:
        return None
    loop, directive = min(mine, key=lambda pair: pair[0].id)
    begin = directive.span.start_byte if directive.span else loop.id
    if _pragma_between(source, fn.span.start_byte, begin):
        return None
    if _branched(source, loop.id, fn.span.start_byte, fn.span.end_byte):
        return None
    return loop, directive


def callee_nowait_findings(analysis: FileAnalysis) -> list[Finding]:
    """ACC111 across helpers: a `nowait` loop's arrays the next helper's loop reads."""
    source = analysis.source
    sharing = [(lp, d) for lp in source.loops() if (d := worksharing(lp)) is not None]
    regions = [
        r
        for r in source.constructs
        if r.directive.dialect == "omp" and r.directive.name.split() == ["parallel"]
    ]
    out: list[Finding] = []
    for loop, directive in sharing:
        fn = source.function(loop.function) if loop.function else None
        if directive.clause("nowait") is None or fn is None or not _orphaned(loop):
            continue
        last = max((lp.id for lp, _ in sharing if lp.function == fn.name), default=0)
        if last != loop.id or _pragma_between(
            source, loop.span.end_byte, fn.span.end_byte
        ):
            continue  # another construct or a barrier follows in the helper
        if _branched(source, loop.id, fn.span.start_byte, fn.span.end_byte):
            continue
        for region in regions:
            calls = _team_calls(source, region)
            for call, nxt in pairwise(calls):
                if call.name != fn.name or _pragma_between(
                    source, call.span.end_byte, nxt.span.start_byte
                ):
                    continue
                made = _early_read(source, (loop, directive, fn, call), nxt, sharing)
                out.extend([made] if made is not None else [])
    return out


def _early_read(
    source: SourceFile,
    first: tuple[Loop, Directive, Function, Call],
    nxt: Call,
    sharing: list[tuple[Loop, Directive]],
) -> Finding | None:
    """The finding when the helper `nxt` calls starts with a loop reading the writes."""
    loop, directive, fn, call = first
    helper = source.function(nxt.name)
    found = _first_loop(source, helper, sharing) if helper is not None else None
    if helper is None or found is None:
        return None
    after, after_directive = found
    # A static schedule may give each thread the same iterations in both loops;
    # their bounds are in two helpers' words, so assume it does.
    one, two = directive.clause("schedule"), after_directive.clause("schedule")
    if (
        one is not None
        and two is not None
        and one.args == two.args
        and (one.args or "").startswith("static")
    ):
        return None
    writes = {
        _caller_name(r.name, fn, call): r
        for r in loop.refs
        if r.is_write and not is_scalar_ref(r)
    }
    for use in after.refs:
        name = _caller_name(use.name, helper, nxt)
        if is_scalar_ref(use) or name is None or name not in writes:
            continue
        return finding(
            NOWAIT_RACE,
            use.span,
            var=use.name,
            write=writes[name].span.line,
            line=loop.line,
            use=use.span.line,
        )
    return None
