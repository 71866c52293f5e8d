"""Shared state two callees update under `critical` constructs of different names.

`critical` and `critical(big)` are two locks: a global one helper updates under
the first and another under the second is updated by two threads at once, a
race (ACC124) however every update is guarded.
"""

from __future__ import annotations

from accls.analysis.callee_state import state_name, threadprivate_names
from accls.analysis.concurrency_kinds import CALLEE_STATE_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_callees import made_in_loop, state_writes
from accls.frontend import Call, Directive, Function, Loop, Ref, SourceFile

__all__ = ["critical_name_findings", "critical_names_at", "critical_state_writes"]

_OTHER = frozenset({"atomic", "single", "master", "masked", "ordered"})


def critical_names_at(
    callee: Function, ref: Ref, source: SourceFile
) -> frozenset[str] | None:
    """The `critical` names around `ref` in the callee; None under other exclusion."""
    start, end = callee.span.start_byte, callee.span.end_byte
    names: set[str] = set()
    for c in source.constructs:
        if not start <= c.span.start_byte < end:
            continue
        if not c.span.start_byte <= ref.span.start_byte < c.span.end_byte:
            continue
        word = c.directive.name.split()[0] if c.directive.name else ""
        if word == "critical":
            clause = c.directive.clauses[0] if c.directive.clauses else None
            name = (clause.args or "") if clause and not clause.name else ""
            names.add(f"critical:{name.strip()}")
        elif word in _OTHER:
            return None
    return frozenset(names)


def critical_state_writes(
    callee: Function, source: SourceFile, threadprivate: frozenset[str]
) -> list[tuple[Ref, frozenset[str]]]:
    """State writes the callee makes in `critical`, with the names it holds."""
    out: list[tuple[Ref, frozenset[str]]] = []
    for ref in state_writes(callee, source, threadprivate, keep_critical=True):
        inside = critical_names_at(callee, ref, source)
        if inside:  # empty: outside `critical`, among the plain writes already
            out.append((ref, inside))
    return out


def _guarded_writes(
    call: Call, loop: Loop, source: SourceFile, tp: frozenset[str]
) -> list[tuple[Ref, frozenset[str]]]:
    callee = source.function(call.name)
    if callee is None or not made_in_loop(loop, call, source):
        return []
    if callee.span.start_byte <= loop.span.start_byte < callee.span.end_byte:
        return []  # recursion through the loop's own function
    return critical_state_writes(callee, source, tp)


def critical_name_findings(
    loop: Loop, directive: Directive, source: SourceFile, name: str
) -> list[Finding]:
    """ACC124 when `name` and another callee of the loop guard one state apart.

    Both calls must be made by iterations of the loop outside any exclusion of
    its own, so two iterations on two threads may run them at once.
    """
    call = next((c for c in loop.calls if c.name == name), None)
    tp = threadprivate_names(source)
    mine = _guarded_writes(call, loop, source, tp) if call is not None else []
    if call is None or not mine:
        return []
    for other in loop.calls:
        if other.name == name:
            continue
        for theirs, held in _guarded_writes(other, loop, source, tp):
            for ref, names in mine:
                if state_name(ref) != state_name(theirs) or names & held:
                    continue
                return [_finding(loop, directive, (call, ref), (other, theirs))]
    return []


def _finding(
    loop: Loop, directive: Directive, mine: tuple[Call, Ref], theirs: tuple[Call, Ref]
) -> Finding:
    (call, ref), (other, write) = mine, theirs
    var = state_name(ref) or ref.name
    return finding(
        CALLEE_STATE_RACE,
        call.span,
        var=var,
        what="a `static` local or a global",
        callee=call.name,
        write=ref.span.line,
        also=f" and by `{other.name}` (line {write.span.line}) under another "
        "`critical` name",
        other=write.span.line,
        who="more than one iteration",
        call=call.span.line,
        region=directive.name,
        line=loop.line,
        rule="the iterations run on different threads, and `critical` constructs "
        "of different names do not exclude each other",
        fix=f"update `{var}` under one `critical` name in both functions",
    )
