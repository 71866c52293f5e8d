"""What a screening report holds: plain frozen values, the same for HTML and JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from accls.analysis.nest_graph import StatementGraph

__all__ = [
    "FileScreen",
    "FindingRow",
    "LoopRow",
    "NestPicture",
    "Report",
    "SkippedFile",
    "Verdict",
    "report_json",
]

FORMAT = "accls-report/1"
"""The JSON format's name and version; also marks an HTML file as an accls report."""


class Verdict(StrEnum):
    """What the screening says about one loop."""

    PARALLEL = "parallel"  # a pragma is suggested
    INSIDE = "inside a parallel loop"  # runs within (or collapsed into) another's
    EXISTING = "has a pragma"  # the user already wrote one
    NOT_WORTH = "parallel, not worth it"  # safe, but too little work to gain
    SERIAL = "not parallel"  # refused, with a reason


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopRow:
    """One loop of the table."""

    file: str
    function: str | None
    line: int
    depth: int  # 0 for an outermost loop
    verdict: Verdict
    reason: str  # the decisive reason ("" for a parallel loop)
    reason_class: str  # the group the reason counts in on the chart ("" if none)
    pragmas: tuple[tuple[str, str], ...]  # (dialect, pragma) for each that has one
    work: str | None = None  # estimated iterations, when the bounds say


@dataclass(frozen=True, slots=True, kw_only=True)
class FindingRow:
    """A finding of `accls check` on a pragma already in the file."""

    file: str
    line: int
    code: str
    severity: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class NestPicture:
    """The dependence graph of one refused nest and the text of its statements."""

    file: str
    line: int  # the outermost loop's
    graph: StatementGraph
    labels: tuple[tuple[int, str], ...]  # (line, statement text)


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedFile:
    """An input that was not screened, and why."""

    file: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FileScreen:
    """Everything screened in one file."""

    file: str
    rows: tuple[LoopRow, ...]
    loops: int  # every loop read, beyond the rows kept
    reasons: tuple[tuple[str, int], ...] = ()  # loops per reason class, all loops
    findings: tuple[FindingRow, ...] = ()
    pictures: tuple[NestPicture, ...] = ()
    warnings: tuple[str, ...] = ()
    skipped: SkippedFile | None = None

    @property
    def capped(self) -> bool:
        """True when the table holds fewer rows than the file has loops."""
        return self.loops > len(self.rows)


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """A whole screening run."""

    inputs: tuple[str, ...]
    files: tuple[FileScreen, ...]
    validated: bool = False  # suggestions went through the compile check
    seconds: float = 0.0
    reason_counts: tuple[tuple[str, int], ...] = field(default=())

    @property
    def rows(self) -> tuple[LoopRow, ...]:
        """The table's rows of every file, in file order."""
        return tuple(r for f in self.files for r in f.rows)

    @property
    def skipped(self) -> tuple[SkippedFile, ...]:
        """The inputs that were not screened."""
        return tuple(f.skipped for f in self.files if f.skipped is not None)


def _picture_json(picture: NestPicture) -> dict[str, Any]:
    return {
        "file": picture.file,
        "line": picture.line,
        "layers": [list(layer) for layer in picture.graph.layers],
        "edges": [asdict(e) for e in picture.graph.edges],
        "dropped": picture.graph.dropped,
        "dropped_edges": picture.graph.dropped_edges,
        "statements": {str(line): text for line, text in picture.labels},
    }


def _row_json(row: LoopRow) -> dict[str, Any]:
    return {
        "file": row.file,
        "function": row.function,
        "line": row.line,
        "depth": row.depth,
        "verdict": row.verdict.value,
        "reason": row.reason,
        "reason_class": row.reason_class,
        "pragmas": dict(row.pragmas),
        "work": row.work,
    }


def report_json(report: Report) -> dict[str, Any]:
    """The report as one JSON object: the data the HTML page shows."""
    screened = [f for f in report.files if f.skipped is None]
    return {
        "format": FORMAT,
        "inputs": list(report.inputs),
        "validated": report.validated,
        "seconds": round(report.seconds, 3),
        "files": [
            {
                "file": f.file,
                "loops": f.loops,
                "rows": len(f.rows),
                "capped": f.capped,
                "reasons": dict(f.reasons),
                "warnings": list(f.warnings),
            }
            for f in screened
        ],
        "loops": [_row_json(r) for r in report.rows],
        "findings": [asdict(x) for f in screened for x in f.findings],
        "reasons": dict(report.reason_counts),
        "graphs": [_picture_json(p) for f in screened for p in f.pictures],
        "skipped": [asdict(s) for s in report.skipped],
    }
