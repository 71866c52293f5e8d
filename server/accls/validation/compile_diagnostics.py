"""Build the unit to compile and trace compiler errors back to pragma clauses."""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Clause
from accls.suggest import Pragma, Suggestion
from accls.suggest.annotate import insertions

__all__ = [
    "DROPPABLE",
    "Diagnostic",
    "Unit",
    "blamed_clause",
    "build_unit",
    "clause_text",
    "errors_in",
    "first_error",
]

DROPPABLE = frozenset(
    {
        "collapse",
        "tile",
        "schedule",
        "dist_schedule",
        "gang",
        "worker",
        "vector",
        "independent",
        "auto",
        "num_gangs",
        "num_workers",
        "vector_length",
        "num_threads",
        "num_teams",
        "thread_limit",
        "simdlen",
        "proc_bind",
    }
)
"""Performance-only clauses: dropping one never makes a loop race or lose data."""

_ERROR = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$"
)
_QUOTED = re.compile(r"'([A-Za-z_]\w*)'")
_NESTING = ("perfectly nested", "collapse", "tile")


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One compiler error: 1-based line and column, and the message."""

    line: int
    col: int
    message: str


@dataclass(frozen=True, slots=True)
class Unit:
    """The text to compile and the 1-based lines of the pragmas we inserted."""

    text: str
    inserted: dict[int, str]  # line -> the stripped inserted line


def build_unit(text: str, suggestions: tuple[Suggestion, ...]) -> Unit:
    """`text` with the suggestions' pragmas inserted, as `annotate_text` does."""
    data = text.encode("utf-8", errors="surrogateescape")
    out: list[bytes] = []
    inserted: dict[int, str] = {}
    line = 1
    last = 0
    for offset, insert in insertions(text, suggestions):
        chunk = data[last:offset]
        line += chunk.count(b"\n")
        for index, part in enumerate(insert.split("\n")):
            if part.strip().startswith("#pragma"):
                inserted[line + index] = part.strip()
        line += insert.count("\n")
        out += [chunk, insert.encode("utf-8")]
        last = offset
    out.append(data[last:])
    unit = b"".join(out).decode("utf-8", errors="surrogateescape")
    return Unit(unit, inserted)


def errors_in(stderr: str, name: str) -> list[Diagnostic]:
    """The errors the compiler reported in file `name`, in order."""
    found = []
    for raw in stderr.splitlines():
        match = _ERROR.match(raw)
        if match and match["file"] == name:
            found.append(
                Diagnostic(int(match["line"]), int(match["col"]), match["msg"])
            )
    return found


def first_error(stderr: str) -> str:
    """The first error line of any file, for a reason; else the first line."""
    lines = stderr.strip().splitlines()
    return next((ln for ln in lines if "error" in ln), lines[0] if lines else "")


def clause_text(clause: Clause) -> str:
    """The clause as it is rendered: `name` or `name(args)`."""
    return clause.name if clause.args is None else f"{clause.name}({clause.args})"


def _clause_at(pragma: Pragma, line: str, col: int, tab: int) -> int | None:
    """Index of the clause under 0-based display column `col` of `line`."""
    rendered = pragma.render()
    start = line.find(rendered)
    if start < 0:
        return None
    pad = len(line[:start].expandtabs(tab)) if tab else start
    cursor = len(f"#pragma {pragma.dialect.sentinel} {pragma.directive}")
    for index, clause in enumerate(pragma.clauses):
        if not clause.name:
            continue  # `critical(name)`: part of the directive
        piece = clause_text(clause)
        at = rendered.find(piece, cursor)
        if at < 0:
            return None
        if pad + at <= col < pad + at + len(piece):
            return index
        cursor = at + len(piece)
    return None


def _clause_named(pragma: Pragma, message: str) -> int | None:
    lowered = message.lower()
    if any(word in lowered for word in _NESTING):
        for index, clause in enumerate(pragma.clauses):
            if clause.name in ("collapse", "tile"):
                return index
    for name in _QUOTED.findall(message):
        word = re.compile(rf"\b{re.escape(name)}\b")
        for index, clause in enumerate(pragma.clauses):
            if clause.name == name or (clause.args and word.search(clause.args)):
                return index
    return None


def blamed_clause(
    diagnostic: Diagnostic, pragma: Pragma, unit: Unit, gcc_columns: bool
) -> int | str | None:
    """The clause an error points at; None if unknown; "other" for other pragmas.

    "other" means the error sits on a pragma we inserted that is not the loop's
    own (an atomic or a data region): those carry safety and are never repaired.
    """
    inserted = unit.inserted.get(diagnostic.line)
    if inserted is not None and inserted != pragma.render():
        return "other"
    if inserted is not None:
        lines = unit.text.split("\n")
        line = lines[diagnostic.line - 1] if diagnostic.line <= len(lines) else ""
        index = _clause_at(pragma, line, diagnostic.col - 1, 8 if gcc_columns else 0)
        if index is not None:
            return index
    return _clause_named(pragma, diagnostic.message)
