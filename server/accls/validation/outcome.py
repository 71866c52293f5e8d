"""Apply validation results to suggestions: keep, repair, or withdraw, and say why."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from accls.analysis import Finding
from accls.frontend import HeaderContext
from accls.suggest import Suggestion, parse_pragma
from accls.validation.compile import CompileResult, CompilerSettings, compile_check
from accls.validation.race_check import race_check

__all__ = ["Validation", "apply_validation", "validate"]

_RACE_OK = (
    "race: no loop-carried dependence, every written scalar private or a reduction "
    "(analysis), and no race or data finding on the pragma (check)"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Validation:
    """What the compile check and the race re-check said about one suggestion."""

    compiles: bool | None  # None: unverified (no compiler, a timeout)
    race_free: bool
    checks: tuple[str, ...]  # one line per check, as the CLI and hover show them

    def as_json(self) -> dict[str, Any]:
        """The `validation` object of the CLI's JSON and the LSP's data."""
        return {
            "compiles": self.compiles,
            "race_free": self.race_free,
            "checks": list(self.checks),
        }


def _validation(
    result: CompileResult | None, checks: list[str], race_free: bool
) -> Validation:
    return Validation(
        compiles=None if result is None else result.compiles,
        race_free=race_free,
        checks=tuple(checks),
    )


def _withdrawn(suggestion: Suggestion, why: str) -> Suggestion:
    return replace(
        suggestion,
        pragma=None,
        atomics=(),
        routines=(),
        region=None,
        reasons=(*suggestion.reasons, f"not offered: {why}"),
        withdrawn=why,
    )


def _compiled(
    suggestion: Suggestion, result: CompileResult | None, checks: list[str]
) -> Suggestion:
    """The suggestion after the compile check: kept, repaired or withdrawn."""
    if result is None or result.compiles is None:
        why = result.reason if result is not None else "not compiled"
        checks.append(f"compile: unverified ({why})")
        return suggestion
    if not result.compiles:
        checks.append(f"compile: failed ({result.reason})")
        return _withdrawn(suggestion, f"the pragma does not compile ({result.reason})")
    repaired = parse_pragma(result.pragma) if result.pragma else None
    if not result.dropped or repaired is None:
        checks.append("compile: ok (" + " ".join(result.command[:3]) + " ...)")
        return suggestion
    dropped = ", ".join(result.dropped)
    checks.append(f"compile: ok after dropping {dropped} (rejected by the compiler)")
    return replace(
        suggestion,
        pragma=repaired,
        reasons=(*suggestion.reasons, f"dropped {dropped}: the compiler rejected it"),
    )


def apply_validation(
    suggestions: tuple[Suggestion, ...],
    results: dict[int, CompileResult],
    races: dict[int, tuple[Finding, ...]],
) -> tuple[tuple[Suggestion, ...], dict[int, Validation]]:
    """Suggestions after the compile and race checks, with their `Validation`.

    Loops without a pragma to check (refused, or the user's own) have none.
    """
    out: list[Suggestion] = []
    validation: dict[int, Validation] = {}
    for suggestion in suggestions:
        key = suggestion.loop.id
        if suggestion.pragma is None or suggestion.existing is not None:
            out.append(suggestion)
            continue
        result = results.get(key)
        found = races.get(key, ())
        if found:
            checks = [f"race: {f.code} {f.message}" for f in found]
            why = f"the race check reports {found[0].code}: {found[0].message}"
            out.append(_withdrawn(suggestion, why))
            validation[key] = _validation(result, checks, False)
            continue
        checks = [_RACE_OK]
        out.append(_compiled(suggestion, result, checks))
        validation[key] = _validation(result, checks, True)
    return tuple(out), validation


def validate(
    text: str,
    path: str,
    suggestions: Sequence[Suggestion],
    compiler: CompilerSettings,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> tuple[tuple[Suggestion, ...], dict[int, Validation]]:
    """Compile-check and race-check suggestions: kept, repaired or withdrawn."""
    offered = tuple(suggestions)
    if not offered:
        return offered, {}
    dialect = offered[0].options.dialect.sentinel
    # The compiler runs while the race check analyses: neither waits for the other.
    with ThreadPoolExecutor(1, thread_name_prefix="accls-compile") as pool:
        compiling = pool.submit(compile_check, text, path, offered, compiler)
        races = race_check(text, path, offered, dialect, include_dirs, context)
        results = compiling.result()
    return apply_validation(offered, results, races)
