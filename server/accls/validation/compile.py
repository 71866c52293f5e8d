"""The compile check: whether each candidate pragma compiles (`cc -S -O0`).

Candidates are first compiled all at once; only when that fails is each one
compiled on its own (in parallel) and, where a performance-only clause is to
blame, repaired by dropping that clause.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from accls.suggest import Pragma, Suggestion
from accls.validation.compile_diagnostics import (
    DROPPABLE,
    Unit,
    blamed_clause,
    build_unit,
    clause_text,
    errors_in,
    first_error,
)
from accls.validation.compile_runner import (
    CompileOutcome,
    CompilerSettings,
    base_command,
    run_unit,
)

__all__ = [
    "CompileResult",
    "CompilerSettings",
    "compile_check",
    "compiler_available",
    "edit_compiles",
]

_MAX_REPAIRS = 4
"""Clauses dropped from one candidate before it is given up."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileResult:
    """The compiler's verdict on one candidate: True, False, or None (unverified)."""

    compiles: bool | None
    pragma: str | None  # the (possibly repaired) pragma line that was checked
    dropped: tuple[str, ...] = ()  # clauses dropped by repair
    reason: str = ""  # "" when ok; why unverified or failed
    command: tuple[str, ...] = ()  # what ran


def compiler_available(settings: CompilerSettings) -> bool:
    """Whether `settings.cc` is on PATH (else every result is unverified)."""
    return shutil.which(settings.cc) is not None


@dataclass(frozen=True, slots=True)
class _Job:
    """What every compile of one file shares."""

    text: str
    name: str
    command: tuple[str, ...]
    settings: CompilerSettings
    gcc_columns: bool

    def run(self, unit: str) -> CompileOutcome:
        return run_unit(self.command, unit, self.name, self.settings)[0]

    @property
    def shown(self) -> tuple[str, ...]:
        return (*self.command, self.name)


def _all(
    candidates: tuple[Suggestion, ...],
    compiles: bool | None,
    reason: str,
    job: tuple[str, ...],
) -> dict[int, CompileResult]:
    return {
        s.loop.id: CompileResult(
            compiles=compiles,
            pragma=s.pragma.render() if s.pragma else None,
            reason=reason,
            command=job,
        )
        for s in candidates
    }


def _enclosing(
    s: Suggestion, candidates: tuple[Suggestion, ...]
) -> tuple[Suggestion, ...]:
    """Candidates around `s`'s loop: an inner `loop` needs its construct."""
    span = s.loop.span
    return tuple(
        c
        for c in candidates
        if c is not s
        and c.loop.span.start_byte <= span.start_byte
        and span.end_byte <= c.loop.span.end_byte
    )


def _without(pragma: Pragma, index: int) -> Pragma:
    return replace(pragma, clauses=pragma.clauses[:index] + pragma.clauses[index + 1 :])


def _droppable(s: Suggestion, pragma: Pragma) -> set[int]:
    """Indices of clauses that can go without a race or lost data.

    Without `collapse`, an inner loop's counter declared outside the nest is
    no longer private, so collapse stays unless each folded loop declares its own.
    """
    private = " ".join(
        c.args or "" for c in pragma.clauses if c.name in ("private", "lastprivate")
    )
    folded = [
        inner
        for inner in s.loop.walk()[1:]
        if inner.id in s.collapsed and not inner.var_declared
    ]
    loose = any(
        inner.var and not re.search(rf"\b{re.escape(inner.var)}\b", private)
        for inner in folded
    )
    return {
        i
        for i, c in enumerate(pragma.clauses)
        if c.name in DROPPABLE and not (loose and c.name in ("collapse", "tile"))
    }


def _blame(
    job: _Job, unit: Unit, s: Suggestion, pragma: Pragma, stderr: str
) -> tuple[int | None, str]:
    """The clause to drop, or None with the reason the candidate fails."""
    errors = errors_in(stderr, job.name)
    if not errors:
        return None, f"does not compile: {first_error(stderr)}"
    error = errors[0]
    blamed = blamed_clause(error, pragma, unit, job.gcc_columns)
    droppable = sorted(_droppable(s, pragma))
    if blamed == "other":
        return (
            None,
            f"an inserted atomic or data pragma does not compile: {error.message}",
        )
    if isinstance(blamed, int):
        name = pragma.clauses[blamed].name
        if blamed in droppable:
            return blamed, ""
        return (
            None,
            f"clause {name!r} does not compile ({error.message}); not safe to drop",
        )
    if not droppable:
        return None, f"does not compile: {error.message}"
    return droppable[-1], ""


def _check_one(
    job: _Job, s: Suggestion, context: tuple[Suggestion, ...]
) -> CompileResult:
    assert s.pragma is not None
    pragma = s.pragma
    dropped: list[str] = []
    while True:
        unit = build_unit(job.text, (*context, replace(s, pragma=pragma)))
        outcome = job.run(unit.text)
        if outcome.ok:
            break
        if outcome.ok is None:
            return CompileResult(
                compiles=None,
                pragma=pragma.render(),
                dropped=tuple(dropped),
                reason=outcome.stderr,
                command=job.shown,
            )
        index, reason = _blame(job, unit, s, pragma, outcome.stderr)
        if index is not None and len(dropped) >= _MAX_REPAIRS:
            index, reason = None, f"still fails after dropping {', '.join(dropped)}"
        if index is None:
            return CompileResult(
                compiles=False,
                pragma=pragma.render(),
                dropped=tuple(dropped),
                reason=reason,
                command=job.shown,
            )
        dropped.append(clause_text(pragma.clauses[index]))
        pragma = _without(pragma, index)
    return CompileResult(
        compiles=True, pragma=pragma.render(), dropped=tuple(dropped), command=job.shown
    )


_SMALL_GROUP = 4
"""Below this many candidates, a failing group is checked one by one."""


def _dialects(candidates: tuple[Suggestion, ...]) -> frozenset[str]:
    found = {str(s.pragma.dialect) for s in candidates if s.pragma is not None}
    found |= {str(s.region.pragma.dialect) for s in candidates if s.region is not None}
    return frozenset(found)


def compile_check(
    text: str,
    path: str,
    suggestions: Sequence[Suggestion],
    settings: CompilerSettings,
) -> dict[int, CompileResult]:
    """Per suggestion (keyed by suggestion.loop.id) whose pragma is not None."""
    candidates = tuple(s for s in suggestions if s.pragma is not None)
    if not candidates:
        return {}
    cc_path = shutil.which(settings.cc)
    if cc_path is None:
        return _all(candidates, None, f"compiler {settings.cc!r} not found", ())
    command = base_command(cc_path, settings, path, _dialects(candidates))
    name = Path(path).name if path else "buffer.c"
    job = _Job(text, name, command, settings, "clang" not in Path(cc_path).name)
    baseline = job.run(text)
    if baseline.ok is None:
        return _all(candidates, None, baseline.stderr, job.shown)
    if not baseline.ok:
        reason = (
            "the file does not compile without the pragma: "
            f"{first_error(baseline.stderr)}"
        )
        return _all(candidates, None, reason, job.shown)
    if job.run(build_unit(text, candidates).text).ok:
        return _all(candidates, True, "", job.shown)
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        suspects = _suspects(job, candidates, candidates, pool)
        fine = tuple(s for s in candidates if s.loop.id not in suspects)
        out = _all(fine, True, "", job.shown)
        checked = tuple(s for s in candidates if s.loop.id in suspects)
        results = pool.map(
            lambda s: _check_one(job, s, _enclosing(s, candidates)), checked
        )
        out.update({s.loop.id: r for s, r in zip(checked, results, strict=True)})
        return out


def _suspects(
    job: _Job,
    group: tuple[Suggestion, ...],
    everyone: tuple[Suggestion, ...],
    pool: ThreadPoolExecutor,
) -> set[int]:
    """Candidates of a failing group that may fail alone: halve the group until small.

    Group testing keeps a big file with one bad candidate at O(log n) compiles
    instead of one compile per candidate.
    """
    if len(group) <= _SMALL_GROUP:
        return {s.loop.id for s in group}
    half = len(group) // 2
    parts = (group[:half], group[half:])

    def fails(part: tuple[Suggestion, ...]) -> bool:
        ids = {s.loop.id for s in part}
        context = {
            c.loop.id: c
            for s in part
            for c in _enclosing(s, everyone)
            if c.loop.id not in ids
        }
        unit = build_unit(job.text, (*context.values(), *part))
        return job.run(unit.text).ok is not True

    found: set[int] = set()
    for part, failed in zip(parts, pool.map(fails, parts), strict=True):
        if failed:
            found |= _suspects(job, part, everyone, pool)
    return found


def edit_compiles(
    before: str, after: str, path: str, settings: CompilerSettings, dialect: str
) -> tuple[bool | None, str]:
    """Whether `after`, the file with an edit of several lines, compiles; and why not.

    None when that cannot be told: no compiler, or `before` does not compile.
    The two compiles run at the same time.
    """
    cc_path = shutil.which(settings.cc)
    if cc_path is None:
        return None, f"compiler {settings.cc!r} not found"
    command = base_command(cc_path, settings, path, frozenset({dialect}))
    name = Path(path).name if path else "buffer.c"
    # Both units at once (two compiler processes): a resolve waits for one compile
    # instead of two when the unedited file is not in the cache yet.
    with ThreadPoolExecutor(max_workers=1) as pool:
        edited = pool.submit(run_unit, command, after, name, settings)
        baseline = run_unit(command, before, name, settings)[0]
        outcome = edited.result()[0]
    if not baseline.ok:
        return None, "the file does not compile without the edit"
    if outcome.ok is None:
        return None, outcome.stderr
    return outcome.ok, "" if outcome.ok else first_error(outcome.stderr)
