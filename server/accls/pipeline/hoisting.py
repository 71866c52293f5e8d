"""Annotate with parallel regions hoisted out of sequential loops, each one checked.

A hoisted region is one edit of several lines (`parallel` on the sequential loop,
`omp for`, `single`, `barrier` inside): it is kept only when the file with it compiles
and the check catalog finds no race or data error that the per-loop pragmas did not
have. Otherwise the loops keep their own `parallel for`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis.data_kinds import LOST_HOST_WRITES
from accls.pipeline.checking import check_text
from accls.pipeline.suggesting import SuggestResult, compiler_settings
from accls.settings import Settings
from accls.suggest import Suggestion
from accls.suggest.annotate import annotate_text
from accls.suggest.hoist import HoistedRegion, hoist_regions
from accls.validation import CompilerSettings, edit_compiles

__all__ = ["HoistOutcome", "annotate_hoisted", "blocking_errors", "hoist_problem"]

_BLOCKING = frozenset({"race", "result", "data"})


@dataclass(frozen=True, slots=True)
class HoistOutcome:
    """The annotated text, the regions it hoists, and those it could not, with why."""

    text: str
    regions: tuple[HoistedRegion, ...]
    refused: tuple[tuple[HoistedRegion, str], ...]


def blocking_errors(text: str, path: str, include_dirs: Sequence[str]) -> int:
    """How many race or data errors the check catalog finds in `text`.

    Host writes a copy back would overwrite (ACC206, a warning for the user's
    own code) count too: an edit of ours must never make one.
    """
    found = check_text(text, path, include_dirs=include_dirs)
    return sum(
        1
        for f in found
        if (f.level.value == "error" and f.kind.category.value in _BLOCKING)
        or f.code == LOST_HOST_WRITES.code
    )


def hoist_problem(
    text: str,
    path: str,
    suggestions: tuple[Suggestion, ...],
    regions: Sequence[HoistedRegion],
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
) -> str:
    """Why `regions` cannot be hoisted in `text` with `suggestions`, or "".

    The check catalog must find no race or data error beyond those of the per-loop
    pragmas, and the file must compile (when `compiler` is given).
    """
    candidate = annotate_text(text, suggestions, regions)
    floor = blocking_errors(annotate_text(text, suggestions), path, include_dirs)
    if blocking_errors(candidate, path, include_dirs) > floor:
        return "the check catalog finds a race or data error in it"
    if compiler is not None:
        ok, why = edit_compiles(text, candidate, path, compiler, "openmp")
        if ok is False:
            return f"it does not compile: {why}"
    return ""


def annotate_hoisted(
    text: str,
    path: str,
    settings: Settings,
    result: SuggestResult,
    suggestions: tuple[Suggestion, ...],
    include_dirs: Sequence[str] = (),
) -> HoistOutcome:
    """`suggestions` inserted into `text`, with every region that checks out hoisted."""
    base = annotate_text(text, suggestions)
    if result.analysis is None:
        return HoistOutcome(base, (), ())
    regions = hoist_regions(result.analysis, suggestions, result.estimates)
    if not regions:
        return HoistOutcome(base, (), ())
    compiler = compiler_settings(settings, include_dirs) if settings.validate else None
    kept: list[HoistedRegion] = []
    refused: list[tuple[HoistedRegion, str]] = []
    for region in regions:
        why = hoist_problem(text, path, suggestions, [region], compiler, include_dirs)
        if why:
            refused.append((region, why))
        else:
            kept.append(region)
    if len(kept) > 1 and (
        why := hoist_problem(text, path, suggestions, kept, compiler, include_dirs)
    ):
        refused.extend((region, why) for region in kept)
        return HoistOutcome(base, (), tuple(refused))
    return HoistOutcome(
        annotate_text(text, suggestions, kept), tuple(kept), tuple(refused)
    )
