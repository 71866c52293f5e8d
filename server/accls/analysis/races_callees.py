"""Race findings of a parallel loop through the functions it calls.

A callee proved to race through one of its states gives an error; one whose
effects cannot be followed gives the doubt that names it (ACC110).
"""

from __future__ import annotations

from accls.analysis.analyze import FileAnalysis
from accls.analysis.callee_critical_names import critical_name_findings
from accls.analysis.callee_critical_reads import critical_read_findings
from accls.analysis.callee_excluded_members import excluded_member_findings
from accls.analysis.callee_half_locks import callee_half_lock_findings
from accls.analysis.callee_indirect import indirect_update_findings
from accls.analysis.callee_inline_probe import inline_probe, inline_verdict
from accls.analysis.callee_linear import callee_linear_findings
from accls.analysis.callee_members import member_findings
from accls.analysis.callee_object_locks import object_lock_findings
from accls.analysis.callee_scratch import shared_scratch_findings
from accls.analysis.callee_thread_rows import overlapping_rows
from accls.analysis.findings import UNKNOWN_CALL, Finding, finding
from accls.analysis.mhp_callees import hidden_state, loop_callee_findings
from accls.analysis.model import ObstacleCode
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.one_thread_rows import one_row_findings
from accls.frontend import Directive, Loop, Ref, SourceFile, Span

__all__ = ["call_findings", "refs_by_span"]


def call_findings(
    analysis: FileAnalysis, loop: Loop, directive: Directive
) -> list[Finding]:
    """Races through the functions the loop calls, or doubts about them."""
    source = analysis.source
    # A callee written in at its call (callee_inline) is no obstacle, but the
    # races proved through callees still name it better than its dependences.
    for written_in in loop.calls:
        if source.function(written_in.name) is not None and inline_verdict(
            written_in, loop, source, PURE_FUNCTIONS
        ):
            shared = _proved_race(loop, directive, analysis, written_in.name)
            if shared:
                return shared
    unknown: list[Finding] = []
    for obstacle in analysis.of(loop).obstacles:
        name = obstacle.variable or ""
        if obstacle.code != ObstacleCode.CALL or name.startswith(("omp_", "acc_")):
            continue
        shared = _proved_race(loop, directive, analysis, name)
        if shared:
            return shared  # a proved race through one callee
        doubt = indirect_update_findings(loop, directive, analysis.source, name)
        unknown += doubt  # a callee's update the data may make collide
        said = any(f.kind is UNKNOWN_CALL for f in unknown)
        if doubt or hidden_state(name, analysis.source) is not None or said:
            continue  # the library's state, used under exclusion only
        call = next((c for c in loop.calls if c.name == name), None)
        span = call.span if call is not None else loop.keyword
        unknown.append(
            finding(
                UNKNOWN_CALL, span, line=loop.line, name=name, call_line=obstacle.line
            )
        )
    return unknown


def refs_by_span(loop: Loop, source: SourceFile) -> dict[Span, Ref]:
    """The loop's references by span, with its callees' written in (callee_inline).

    The dependences of a loop join those too: a race between two of them is
    then described and judged certain as one between the loop's own.
    """
    probe = inline_probe(loop, source, PURE_FUNCTIONS)
    out = {ref.span: ref for ref in probe.refs}
    out.update((ref.span, ref) for ref in loop.refs)  # the loop's own win
    return out


def _proved_race(
    loop: Loop, directive: Directive, analysis: FileAnalysis, name: str
) -> list[Finding]:
    """The race the loop's calls of `name` are proved to make, if any."""
    shared = loop_callee_findings(loop, directive, analysis.source, name)
    for more in (
        member_findings,
        shared_scratch_findings,
        overlapping_rows,
        critical_name_findings,
        one_row_findings,
        excluded_member_findings,
        callee_half_lock_findings,
        callee_linear_findings,
        object_lock_findings,
        critical_read_findings,
    ):
        shared = shared or more(loop, directive, analysis.source, name)
    return shared
