"""The findings check: the catalog's detectors run on the pragmas already in a file.

`accls check`, the editor's diagnostics and the race re-check of suggestions all
call this module, so they report the same findings in the same order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from accls.analysis.acc_async import async_findings
from accls.analysis.acc_gangs import gang_findings
from accls.analysis.analyze import AnalysisOptions, FileAnalysis, analyze
from accls.analysis.array_privates import private_array_findings
from accls.analysis.callee_fill_races import filled_scratch_findings
from accls.analysis.data_movement import data_findings
from accls.analysis.device_coherence import coherence_findings
from accls.analysis.device_stale import stale_findings
from accls.analysis.findings import Finding
from accls.analysis.lifetime_stale import lifetime_stale_findings
from accls.analysis.linear_pointers import linear_pointer_findings
from accls.analysis.list_tasks import list_task_findings
from accls.analysis.mapped_twice import mapped_twice_findings
from accls.analysis.mhp_races import concurrency_findings
from accls.analysis.mhp_task_frames import task_frame_findings
from accls.analysis.nowait import nowait_findings
from accls.analysis.nowait_calls import callee_nowait_findings
from accls.analysis.omp_teams import teams_findings
from accls.analysis.pragma_scope import loop_directive
from accls.analysis.pragma_syntax import pragma_findings
from accls.analysis.private_pointers import private_pointer_findings
from accls.analysis.privatization import scalar_findings
from accls.analysis.program import ProgramSummaries
from accls.analysis.races import dependence_findings, shape_findings
from accls.analysis.reduction_sections import reduction_section_findings

# The sections detector sits at the package root until it moves into analysis/;
# importing it here makes no cycle (it imports accls.analysis, not this module).
from accls.analysis.section_checks import copyout_findings, section_findings
from accls.analysis.target_call_pairs import target_call_findings
from accls.analysis.transfers import transfer_findings
from accls.frontend import HeaderContext, SourceFile, parse_source
from accls.frontend.incremental import IncrementalTree

__all__ = ["DIALECTS", "check_file", "check_source", "in_file_order"]

DIALECTS = ("omp", "acc")
"""Pragma sentinels the check understands."""


def in_file_order(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """Findings without repeats, by start byte, then code, then message."""
    unique = {(f.code, f.span.start_byte, f.message): f for f in findings}
    return tuple(
        sorted(unique.values(), key=lambda f: (f.span.start_byte, f.code, f.message))
    )


def check_source(analysis: FileAnalysis, dialect: str = "") -> tuple[Finding, ...]:
    """Findings for the pragmas of `dialect` (both when empty) in an analysed file.

    Pass the dialect the analysis was run with: `atomic` and `critical` protect only
    the references of that dialect.
    """
    dialects = (dialect,) if dialect else DIALECTS
    found: list[Finding] = []
    for loop in analysis.source.loops():
        for sentinel in dialects:
            directive = loop_directive(loop, sentinel)
            if directive is None:
                continue
            found.extend(shape_findings(loop, directive))
            found.extend(dependence_findings(analysis, loop, directive))
            found.extend(scalar_findings(analysis, loop, directive))
            found.extend(private_array_findings(loop, directive))
            found.extend(filled_scratch_findings(loop, directive, analysis.source))
            fn = analysis.source.function(loop.function)
            found.extend(private_pointer_findings(loop, directive, fn))
            found.extend(reduction_section_findings(loop, directive, analysis.source))
            found.extend(linear_pointer_findings(loop, directive, analysis.source))
    for sentinel in dialects:
        found.extend(data_findings(analysis, sentinel))
        found.extend(section_findings(analysis, sentinel))
        found.extend(copyout_findings(analysis, sentinel))
        found.extend(transfer_findings(analysis, sentinel))
        found.extend(coherence_findings(analysis, sentinel))
        found.extend(stale_findings(analysis, sentinel))
        found.extend(lifetime_stale_findings(analysis, sentinel))
        found.extend(mapped_twice_findings(analysis, sentinel))
    if "acc" in dialects:
        found.extend(async_findings(analysis.source))
        found.extend(gang_findings(analysis.source))
    if "omp" in dialects:
        found.extend(nowait_findings(analysis))
        found.extend(callee_nowait_findings(analysis))
        found.extend(concurrency_findings(analysis.source))
        found.extend(task_frame_findings(analysis.source))
        found.extend(list_task_findings(analysis.source))
        found.extend(target_call_findings(analysis.source))
        found.extend(teams_findings(analysis.source))
        found.extend(pragma_findings(analysis.source))
    return in_file_order(found)


def check_file(
    text: str,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
    *,
    tree: IncrementalTree | None = None,
    analyses: Mapping[str, FileAnalysis] | None = None,
    program: ProgramSummaries | None = None,
    source: SourceFile | None = None,
) -> tuple[Finding, ...]:
    """Parse C text once, analyse it per dialect, and check each dialect's pragmas.

    `tree` re-uses an editor's incremental parse of the same text; `analyses`
    are the text's analyses already made, by dialect (`omp`, `acc`), with
    `AnalysisOptions(dialect=...)` and nothing assumed; `program` what the
    project's other files define (their kernel functions, their effects);
    `source` the text already parsed (the caller's own use of it, read once).
    """
    found: list[Finding] = []
    for dialect in DIALECTS:
        if dialect not in text:
            continue
        analysis = (analyses or {}).get(dialect)
        if analysis is None:
            if source is None:
                source = parse_source(
                    text, path, include_dirs, tree=tree, context=context
                )
            options = AnalysisOptions(dialect=dialect, program=program)
            analysis = analyze(source, options)
        found.extend(check_source(analysis, dialect))
    return in_file_order(found)
