"""Annotate with device data lifetimes and `async` kernels, each checked as a whole.

A lifetime is several edits (`enter data`, `exit data`, `update` lines, `present` in
the kernels), a run of `async` kernels two or more (`async(q)` on each, one `wait`):
each is kept only when the file with it compiles and the check catalog finds no
race or data error that the per-loop pragmas did not have. Otherwise the kernels
keep their own copies, and run one after the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.pipeline.hoisting import blocking_errors
from accls.suggest import Suggestion
from accls.suggest.annotate import annotate_text
from accls.suggest.kernel_async import AsyncRun, async_runs, with_async
from accls.suggest.kernels_style import uses_kernels_regions, with_kernels_regions
from accls.suggest.lifetime_edits import with_present
from accls.suggest.lifetimes import DeviceLifetime, propose_lifetimes
from accls.suggest.options import SuggestOptions
from accls.validation import CompilerSettings, edit_compiles

__all__ = [
    "LifetimeOutcome",
    "annotate_lifetimes",
    "kernels_regions_checked",
    "lifetime_problem",
]


@dataclass(frozen=True, slots=True)
class LifetimeOutcome:
    """The annotated text, what it keeps and runs async, and what was refused, why."""

    text: str
    lifetimes: tuple[DeviceLifetime, ...]
    refused: tuple[tuple[DeviceLifetime, str], ...]
    runs: tuple[AsyncRun, ...] = ()
    refused_runs: tuple[tuple[AsyncRun, str], ...] = ()


def lifetime_problem(
    text: str,
    path: str,
    analysis: FileAnalysis,
    suggestions: tuple[Suggestion, ...],
    lifetimes: Sequence[DeviceLifetime],
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
    named_elsewhere: frozenset[str] = frozenset(),
    runs: Sequence[AsyncRun] = (),
) -> str:
    """Why `lifetimes` (and async `runs`) cannot be added to `text`, or "".

    The compile check runs (a compiler process) while the check catalog reads the
    candidate; the per-loop pragmas' own findings are counted only when the
    candidate has any.
    """
    present = with_present(analysis, suggestions, lifetimes, named_elsewhere)
    candidate = annotate_text(text, with_async(present, runs), (), lifetimes, runs)
    dialects = [x.dialect for x in lifetimes] + [x.dialect for x in runs]
    dialect = dialects[0] if dialects else None
    with ThreadPoolExecutor(max_workers=1) as pool:
        compiled = (
            pool.submit(edit_compiles, text, candidate, path, compiler, dialect)
            if compiler is not None and dialect is not None
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


def kernels_regions_checked(
    text: str,
    path: str,
    suggestions: tuple[Suggestion, ...],
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
) -> tuple[tuple[Suggestion, ...], str]:
    """`kernels` regions for a file that uses them, when the whole edit checks out.

    The suggestions with their runs as `kernels` regions, and ""; or the
    suggestions as they were, and why the regions were refused.
    """
    if not uses_kernels_regions(text):
        return suggestions, ""
    converted = with_kernels_regions(suggestions)
    if converted == suggestions:
        return suggestions, ""
    candidate = annotate_text(text, converted)
    before = blocking_errors(annotate_text(text, suggestions), path, include_dirs)
    if blocking_errors(candidate, path, include_dirs) > before:
        return suggestions, "the check catalog finds a race or data error in them"
    if compiler is not None:
        ok, why = edit_compiles(text, candidate, path, compiler, "openacc")
        if ok is False:
            return suggestions, f"they do not compile: {why}"
    return converted, ""


def annotate_lifetimes(
    text: str,
    path: str,
    analysis: FileAnalysis,
    suggestions: tuple[Suggestion, ...],
    options: SuggestOptions,
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
) -> LifetimeOutcome:
    """`suggestions` in `text`, with every lifetime and async run that checks out."""

    def problem(lifetimes: Sequence[DeviceLifetime], runs: Sequence[AsyncRun]) -> str:
        return lifetime_problem(
            text,
            path,
            analysis,
            suggestions,
            lifetimes,
            compiler,
            include_dirs,
            runs=runs,
        )

    kept: list[DeviceLifetime] = []
    refused: list[tuple[DeviceLifetime, str]] = []
    for lifetime in propose_lifetimes(analysis, suggestions, options):
        why = problem([lifetime], ())
        if why:
            refused.append((lifetime, why))
        else:
            kept.append(lifetime)
    if len(kept) > 1 and (why := problem(kept, ())):
        refused.extend((lifetime, why) for lifetime in kept)
        kept = []
    present = with_present(analysis, suggestions, kept)
    runs: list[AsyncRun] = []
    refused_runs: list[tuple[AsyncRun, str]] = []
    for run in async_runs(analysis, present, options):
        why = problem(kept, [run])
        if why:
            refused_runs.append((run, why))
        else:
            runs.append(run)
    if len(runs) > 1 and (why := problem(kept, runs)):
        refused_runs.extend((run, why) for run in runs)
        runs = []
    return LifetimeOutcome(
        annotate_text(text, with_async(present, runs), (), kept, runs),
        tuple(kept),
        tuple(refused),
        tuple(runs),
        tuple(refused_runs),
    )
