"""Annotate with device data lifetimes across functions, each one checked as a whole.

A lifetime is several edits (`enter data`, `exit data`, `update` lines, `present` in
the kernels): it is kept only when the file with all of them compiles and the check
catalog finds no race or data error that the per-loop pragmas did not have. Otherwise
the kernels keep their own copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.pipeline.hoisting import blocking_errors
from accls.suggest import Suggestion
from accls.suggest.annotate import annotate_text
from accls.suggest.lifetime_edits import with_present
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes
from accls.suggest.options import SuggestOptions
from accls.validation import CompilerSettings, edit_compiles

__all__ = ["LifetimeOutcome", "annotate_lifetimes", "lifetime_problem"]


@dataclass(frozen=True, slots=True)
class LifetimeOutcome:
    """The annotated text, the lifetimes it keeps, and those refused, with why."""

    text: str
    lifetimes: tuple[DeviceLifetime, ...]
    refused: tuple[tuple[DeviceLifetime, str], ...]


def lifetime_problem(
    text: str,
    path: str,
    analysis: FileAnalysis,
    suggestions: tuple[Suggestion, ...],
    lifetimes: Sequence[DeviceLifetime],
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
    named_elsewhere: frozenset[str] = frozenset(),
) -> str:
    """Why `lifetimes` cannot be added to `text` with `suggestions`, or "".

    The compile check runs (a compiler process) while the check catalog reads the
    candidate; the per-loop pragmas' own findings are counted only when the
    candidate has any.
    """
    present = with_present(analysis, suggestions, lifetimes, named_elsewhere)
    candidate = annotate_text(text, present, (), lifetimes)
    with ThreadPoolExecutor(max_workers=1) as pool:
        compiled = (
            pool.submit(
                edit_compiles, text, candidate, path, compiler, lifetimes[0].dialect
            )
            if compiler is not None and lifetimes
            else None
        )
        errors = blocking_errors(candidate, path, include_dirs)
        if errors and errors > blocking_errors(
            annotate_text(text, suggestions), path, include_dirs
        ):
            return "the check catalog finds a race or data error in it"
        if compiled is not None:
            ok, why = compiled.result()
            if ok is False:
                return f"it does not compile: {why}"
    return ""


def annotate_lifetimes(
    text: str,
    path: str,
    analysis: FileAnalysis,
    suggestions: tuple[Suggestion, ...],
    options: SuggestOptions,
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
) -> LifetimeOutcome:
    """`suggestions` inserted into `text`, with every lifetime that checks out."""
    lifetimes = propose_lifetimes(analysis, suggestions, options)
    base = annotate_text(text, suggestions)
    if not lifetimes:
        return LifetimeOutcome(base, (), ())
    kept: list[DeviceLifetime] = []
    refused: list[tuple[DeviceLifetime, str]] = []
    for lifetime in lifetimes:
        why = lifetime_problem(
            text, path, analysis, suggestions, [lifetime], compiler, include_dirs
        )
        if why:
            refused.append((lifetime, why))
        else:
            kept.append(lifetime)
    if len(kept) > 1 and (
        why := lifetime_problem(
            text, path, analysis, suggestions, kept, compiler, include_dirs
        )
    ):
        refused.extend((lifetime, why) for lifetime in kept)
        return LifetimeOutcome(base, (), tuple(refused))
    present = with_present(analysis, suggestions, kept)
    return LifetimeOutcome(
        annotate_text(text, present, (), kept), tuple(kept), tuple(refused)
    )
