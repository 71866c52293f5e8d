"""Apply validation results to suggestions: keep, repair, or drop, and say why."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from accls.suggest import Suggestion, parse_pragma
from accls.validation.compile import CompileResult

__all__ = ["apply_compile_results"]


def _validation(result: CompileResult | None, checks: list[str]) -> dict[str, Any]:
    return {
        "compiles": None if result is None else result.compiles,
        # Every pragma accls shows comes from the dependence analysis' facts.
        "race_free": True,
        "checks": checks,
    }


def apply_compile_results(
    suggestions: tuple[Suggestion, ...], results: dict[int, CompileResult]
) -> tuple[tuple[Suggestion, ...], dict[int, dict[str, Any]]]:
    """Suggestions after the compile check, and each one's `validation` object."""
    out: list[Suggestion] = []
    validation: dict[int, dict[str, Any]] = {}
    for suggestion in suggestions:
        result = results.get(suggestion.loop.id)
        if suggestion.pragma is None or suggestion.existing is not None:
            out.append(suggestion)
            validation[suggestion.loop.id] = {}
            continue
        checks = [
            "race: no loop-carried dependence and every written scalar is private "
            "or a reduction (analysis)"
        ]
        if result is None or result.compiles is None:
            why = result.reason if result is not None else "not compiled"
            checks.append(f"compile: unverified ({why})")
            out.append(suggestion)
        elif result.compiles:
            repaired = parse_pragma(result.pragma) if result.pragma else None
            if result.dropped and repaired is not None:
                checks.append(
                    "compile: ok after dropping "
                    + ", ".join(f"`{c}`" for c in result.dropped)
                    + " (rejected by the compiler)"
                )
                suggestion = replace(
                    suggestion,
                    pragma=repaired,
                    reasons=(
                        *suggestion.reasons,
                        "dropped "
                        + ", ".join(result.dropped)
                        + ": the compiler rejected",
                    ),
                )
            else:
                checks.append("compile: ok (" + " ".join(result.command[:3]) + " ...)")
            out.append(suggestion)
        else:
            checks.append(f"compile: failed ({result.reason})")
            out.append(
                replace(
                    suggestion,
                    pragma=None,
                    atomics=(),
                    region=None,
                    reasons=(
                        *suggestion.reasons,
                        f"not offered: the pragma does not compile ({result.reason})",
                    ),
                )
            )
        validation[suggestion.loop.id] = _validation(result, checks)
    return tuple(out), validation
