"""`accls check`: findings for the pragmas already in a file, and their output."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from accls.analysis import AnalysisOptions, FileAnalysis, analyze
from accls.analysis.data_movement import data_findings
from accls.analysis.findings import Finding, Severity
from accls.analysis.nowait import nowait_findings
from accls.analysis.pragma_scope import loop_directive
from accls.analysis.privatization import scalar_findings
from accls.analysis.races import dependence_findings, shape_findings
from accls.analysis.transfers import transfer_findings
from accls.checks_sections import section_findings
from accls.frontend import HeaderContext, parse_source

__all__ = [
    "DIALECTS",
    "check_file",
    "check_source",
    "exit_code",
    "finding_json",
    "write_findings_text",
]

DIALECTS = ("omp", "acc")
"""Pragma sentinels `check` understands."""


def _sorted(findings: Iterable[Finding]) -> tuple[Finding, ...]:
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
    for sentinel in dialects:
        found.extend(data_findings(analysis, sentinel))
        found.extend(section_findings(analysis, sentinel))
        found.extend(transfer_findings(analysis, sentinel))
    if "omp" in dialects:
        found.extend(nowait_findings(analysis))
    return _sorted(found)


def check_file(
    text: str,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> tuple[Finding, ...]:
    """Parse C text once, analyse it per dialect, and check each dialect's pragmas."""
    source = parse_source(text, path, include_dirs, context=context)
    found: list[Finding] = []
    for dialect in DIALECTS:
        if f"{dialect}" not in text:
            continue
        analysis = analyze(source, AnalysisOptions(dialect=dialect))
        found.extend(check_source(analysis, dialect))
    return _sorted(found)


def exit_code(findings: Iterable[Finding]) -> int:
    """1 when any finding is an error, else 0."""
    return 1 if any(f.level is Severity.ERROR for f in findings) else 0


def finding_json(path: str, item: Finding) -> dict[str, Any]:
    """The JSON object of the CLI contract for one finding."""
    return {
        "file": path,
        "line": item.span.line,
        "column": item.span.column,
        "end_line": item.span.end[0] + 1,
        "end_column": item.span.end[1] + 1,
        "code": item.code,
        "category": item.kind.category.value,
        "severity": item.level.value,
        "title": item.kind.title,
        "message": item.message,
    }


def write_findings_text(stream: TextIO, items: Sequence[tuple[str, Finding]]) -> None:
    """One `file:line:col: severity CODE message` line per finding."""
    for path, item in items:
        stream.write(
            f"{path}:{item.span.line}:{item.span.column}: {item.level.value} "
            f"{item.code} {item.message}\n"
        )
    errors = sum(1 for _, f in items if f.level is Severity.ERROR)
    stream.write(f"{len(items)} finding(s), {errors} error(s)\n")
