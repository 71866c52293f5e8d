"""ACC125 for OpenACC: code of `parallel` outside a gang loop runs in every gang.

A `parallel` construct starts its gangs in gang-redundant mode: each gang runs the
region's code until a `loop` that is partitioned across gangs (`gang`, or no level
at all, which the compiler gives to gangs). A write there to data that the gangs
share is made by every gang at once.
"""

from __future__ import annotations

from accls.analysis.concurrency_kinds import TEAMS_REPLICATED
from accls.analysis.finding_types import Finding, Severity, finding
from accls.analysis.pragma_scope import list_names
from accls.frontend import Directive, Function, Loop, Ref, Region, SourceFile

__all__ = ["gang_findings"]

_LEVELS = frozenset({"gang", "worker", "vector", "seq"})
_SHARED_SCALARS = frozenset({"copy", "copyout", "create", "present", "pcopy"})
_SHARED_SCALARS |= {"pcopyout", "pcreate", "present_or_copy", "present_or_copyout"}
_PRIVATE = frozenset({"private", "firstprivate", "reduction"})


def _words(directive: Directive) -> set[str]:
    return set(directive.name.split())


def _is_region(directive: Directive) -> bool:
    words = _words(directive)
    return directive.dialect == "acc" and "parallel" in words and "loop" not in words


def _gang_loop(loop: Loop) -> bool:
    """True if an OpenACC `loop` pragma spreads the loop over the gangs."""
    for directive in loop.pragmas:
        if directive.dialect != "acc" or "loop" not in _words(directive):
            continue
        names = {c.name for c in directive.clauses}
        return "gang" in names or not names & _LEVELS
    return False


def _names(directives: list[Directive], clauses: frozenset[str]) -> set[str]:
    out: set[str] = set()
    for directive in directives:
        for clause in directive.clauses:
            if clause.name in clauses and clause.args:
                out |= list_names(clause.args)
    return out


def _regions(source: SourceFile) -> list[Region]:
    found: dict[int, Region] = {}
    for loop in source.loops():
        for region in loop.regions:
            span = region.directive.span
            if span is not None and _is_region(region.directive):
                found.setdefault(span.start_byte, region)
    return [found[k] for k in sorted(found)]


def _gang_count(directive: Directive) -> int | None:
    """The literal `num_gangs(N)`, None when absent or an expression."""
    clause = directive.clause("num_gangs")
    text = (clause.args or "").strip() if clause is not None else ""
    return int(text) if text.isdigit() else None


def _shared(
    ref: Ref, fn: Function, source: SourceFile, region: Region, owned: set[str]
) -> bool:
    if ref.name in owned:
        return False
    var = fn.lookup(ref.name) or next(
        (g for g in source.globals if g.name == ref.name), None
    )
    span = region.span
    if (
        var is not None
        and var.span is not None
        and not _outside(var.span.start_byte, span.start_byte, span.end_byte)
    ):
        return False  # declared in the region: one per gang
    return _shared_object(ref, var is None or var.is_array, region)


def _outside(pos: int, start: int, end: int) -> bool:
    return not start <= pos < end


def _shared_object(ref: Ref, is_array: bool, region: Region) -> bool:
    if ref.subscripts or ref.deref:
        return is_array
    return ref.name in _names([region.directive], _SHARED_SCALARS)


def _replicated(source: SourceFile, fn: Function, region: Region) -> Finding | None:
    loops = {loop.id: loop for loop in source.loops()}
    inside = [
        loop
        for loop in loops.values()
        if region.span.start_byte <= loop.id < region.span.end_byte
    ]
    owned = _names([region.directive], _PRIVATE)
    owned |= {loop.var for loop in inside if loop.var}
    for ref in fn.refs:
        pos = ref.span.start_byte
        if not ref.is_write or not region.span.start_byte <= pos < region.span.end_byte:
            continue
        enclosing = [loops[i] for i in ref.loops if i in loops and loops[i] in inside]
        if any(_gang_loop(loop) for loop in enclosing):
            continue
        if ref.atomic == "acc":
            continue
        mine = owned | _names(
            [d for loop in enclosing for d in loop.pragmas if d.dialect == "acc"],
            _PRIVATE,
        )
        if not _shared(ref, fn, source, region, mine):
            continue
        span = region.directive.span
        gangs = _gang_count(region.directive)
        fix = "put the loop under `#pragma acc loop gang` (or `loop`)"
        if gangs is None:
            fix += (
                "; without `num_gangs` the count of gangs is the implementation's "
                "choice, and the race needs more than one"
            )
        return finding(
            TEAMS_REPLICATED,
            ref.span,
            None if gangs is not None else Severity.WARNING,
            var=ref.render(),
            write=ref.span.line,
            who="gangs",
            one="gang",
            meet="the gangs write the same location",
            directive=region.directive.name,
            line=span.line if span is not None else ref.span.line,
            split="any gang-partitioned `loop`",
            fix=fix,
        )
    return None


def gang_findings(source: SourceFile) -> list[Finding]:
    """ACC125 for the OpenACC `parallel` regions of the file."""
    out: list[Finding] = []
    for region in _regions(source):
        if _gang_count(region.directive) == 1:
            continue
        fn = next(
            (
                f
                for f in source.functions
                if f.span.start_byte <= region.span.start_byte < f.span.end_byte
            ),
            None,
        )
        made = None if fn is None else _replicated(source, fn, region)
        if made is not None:
            out.append(made)
    return out
