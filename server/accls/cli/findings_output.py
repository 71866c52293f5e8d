"""`accls check`'s output: findings as text lines or JSON objects, and the exit code."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from accls.analysis.findings import Finding, Severity

__all__ = ["exit_code", "finding_json", "write_findings_text"]


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
