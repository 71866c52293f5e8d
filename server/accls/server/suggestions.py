"""The one place the server gets suggestions: analysis, (later) models, validation.

Listing and hover use `listed` (analysis only, cheap, cached per version). Resolve
and commands use `resolved`: `accls.pipeline.suggest_text` on the listed loop,
with the compile and race checks and, when set, the model backend.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from accls.analysis import (
    AnalysisOptions,
    FileAnalysis,
    LoopFacts,
    ProgramSummaries,
    analyze_dialects,
)
from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import loop_array_uses
from accls.frontend import HeaderContext, Loop, Poly, SourceFile, parse_source
from accls.hybrid import BackendPool
from accls.pipeline import suggest_text, whole_file_passes, with_whole_file
from accls.project import with_program
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.suggest.backends import BackendKind
from accls.validation import Validation

__all__ = [
    "OFFERS",
    "BufferAnalysis",
    "DataMove",
    "Validated",
    "analyze_buffer",
    "before_passes",
    "data_moves",
    "joined",
    "listed",
    "offers",
    "pending",
    "resolved",
]

log = logging.getLogger(__name__)

OFFERS = (
    SuggestOptions(Dialect.OPENACC, Target.GPU),
    SuggestOptions(Dialect.OPENMP, Target.CPU),
    SuggestOptions(Dialect.OPENMP, Target.GPU),
)
"""The three code actions a loop may offer, in the order they are listed."""


def offers(settings: Settings) -> tuple[SuggestOptions, ...]:
    """OFFERS, with the user's choice of OpenACC `kernels` and of GPU applied."""
    return tuple(
        replace(
            o,
            kernels=settings.kernels and o.dialect is Dialect.OPENACC,
            gpu=settings.gpu if o.target is Target.GPU else o.gpu,
        )
        for o in OFFERS
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class BufferAnalysis:
    """A parsed (sliced) buffer and its analysis for each dialect."""

    source: SourceFile
    acc: FileAnalysis
    omp: FileAnalysis
    # The analysis is of the whole buffer, which parses cleanly: every call of
    # the file is seen, so the whole-file passes run on it.
    entire: bool = False
    # For a slice: the whole buffer's analysis at this version, once it is in.
    whole: BufferAnalysis | None = field(default=None, compare=False)
    # Listed suggestions by (options, regions): they live as long as the analysis.
    memo: dict[object, tuple[Suggestion, ...]] = field(
        default_factory=dict, compare=False
    )

    def analysis(self, model: Dialect) -> FileAnalysis:
        """The analysis whose atomics protect `model`'s constructs."""
        return self.acc if model is Dialect.OPENACC else self.omp

    def loops_at(self, offset: int) -> tuple[Loop, ...]:
        """Loops whose statement holds byte `offset`, outermost first."""
        return tuple(
            loop
            for loop in self.source.loops()
            if loop.span.start_byte <= offset < loop.span.end_byte
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Validated:
    """The suggestions of one code action after validation."""

    suggestions: tuple[Suggestion, ...]
    validation: Mapping[int, Validation]  # by loop id; only loops that were checked
    withdrawn: str | None  # why the action is not offered, when it is not
    warnings: tuple[str, ...] = ()  # e.g. the model server is unreachable

    def validation_json(self, loop_id: int) -> dict[str, Any]:
        """The loop's `validation` object for the client ({} when not checked)."""
        found = self.validation.get(loop_id)
        return found.as_json() if found is not None else {}


@dataclass(frozen=True, slots=True)
class DataMove:
    """One array an offloaded loop moves: direction, section and estimated size."""

    name: str
    direction: str  # "to device", "from device", "both ways"
    section: str
    size: str  # "n*m x double", or "unknown"


def analyze_buffer(
    text: str,
    path: str,
    include_dirs: Sequence[str],
    settings: Settings,
    context: HeaderContext | None = None,
    program: ProgramSummaries | None = None,
    *,
    entire: bool = False,
) -> BufferAnalysis:
    """Parse once and analyse for both dialects, with the other files' summaries.

    `entire`: `text` is the whole buffer and parses cleanly.
    """
    context = with_program(context, program)
    source = parse_source(text, path, include_dirs, context=context)
    options = AnalysisOptions(
        settings.assume_no_alias,
        program=program,
        reassociate_float=settings.reassociate_float,
    )
    acc, omp = analyze_dialects(source, options, ("acc", "omp"))
    return BufferAnalysis(source=source, acc=acc, omp=omp, entire=entire)


def _base(
    analysed: BufferAnalysis, options: SuggestOptions, regions: bool
) -> tuple[Suggestion, ...]:
    """The analysis' suggestions before the whole-file passes (cached)."""
    key = ("base", options, regions)
    found = analysed.memo.get(key)
    if found is None:
        analysis = analysed.analysis(options.dialect)
        found = analysed.memo[key] = suggest_file(analysis, options, regions=regions)
    return found


def listed(
    analysed: BufferAnalysis, options: SuggestOptions, *, regions: bool = False
) -> tuple[Suggestion, ...]:
    """Analysis-only suggestions: what listing and hover show.

    The passes that need the whole file run on a whole buffer's analysis; a
    slice takes what they changed once the whole buffer's analysis is in, so
    the editor offers what `accls suggest` writes.
    """
    found = _base(analysed, options, regions)
    if analysed.entire:
        return whole_file_passes(analysed.analysis(options.dialect), found)
    return joined(found, analysed.whole, options, regions=regions)


def before_passes(
    analysed: BufferAnalysis, options: SuggestOptions, *, regions: bool = False
) -> tuple[Suggestion, ...]:
    """The analysis' own suggestions, before any whole-file pass (cached)."""
    return _base(analysed, options, regions)


def joined(
    found: tuple[Suggestion, ...],
    whole: BufferAnalysis | None,
    options: SuggestOptions,
    *,
    regions: bool = False,
) -> tuple[Suggestion, ...]:
    """A slice's suggestions with what the whole buffer's passes changed, if in."""
    if whole is None:
        return found
    key = (options, regions)  # the key the listing caches a whole buffer's under
    after = whole.memo.get(key)
    if after is None:
        after = whole.memo[key] = listed(whole, options, regions=regions)
    return with_whole_file(found, _base(whole, options, regions), after)


def pending(analysed: BufferAnalysis) -> bool:
    """Whether the whole-file passes have not reached this analysis yet."""
    return not analysed.entire and analysed.whole is None


def _log_warning(message: str, /) -> None:
    log.warning("%s", message)


def _withdrawn(checked: tuple[Suggestion, ...]) -> str | None:
    """Why validation withdrew a suggestion that had a pragma, if it did."""
    return next((s.withdrawn for s in checked if s.withdrawn is not None), None)


def resolved(
    text: str,
    path: str,
    chosen: tuple[Suggestion, ...],
    settings: Settings,
    include_dirs: Sequence[str],
    *,
    backends: BackendPool | None = None,
    program: ProgramSummaries | None = None,
) -> Validated:
    """The chosen suggestions after the compile check and the race re-check.

    With a model backend, its candidates for the chosen loop are ranked with the
    analysis' pragma; `backends` keeps the server's loaded models; `program` is
    what the listing knew of the other files.
    """
    result = suggest_text(
        text,
        path,
        settings,
        options=chosen[0].options,
        include_dirs=include_dirs,
        listed=chosen,
        regions=False,
        backends=backends,
        warnings=_log_warning,
        program=program,
    )
    checked = result.suggestions
    withdrawn = _withdrawn(checked)
    hybrid = settings.backend.kind is not BackendKind.ANALYSIS
    if hybrid and withdrawn is None and checked[0].pragma is None:
        # A loop the analysis refused, and no model candidate survived.
        whys = [f"`{a.text}`: {a.why}" for a in checked[0].alternatives[:3]]
        withdrawn = (
            "no validated model pragma"
            + (" (" + "; ".join(whys) + ")" if whys else "")
            + "".join(f"; {w}" for w in result.warnings)
        )
    return Validated(
        suggestions=checked,
        validation=result.validation,
        withdrawn=withdrawn,
        warnings=result.warnings,
    )


def _size(lengths: Sequence[Poly], element: str) -> str:
    product = Poly.const(1)
    for length in lengths:
        product = product * length
    return f"{product.render()} x {element}"


def data_moves(analysed: BufferAnalysis, facts: LoopFacts) -> tuple[DataMove, ...]:
    """Estimated host-device transfers if the loop were offloaded on its own."""
    loop = facts.loop
    analysis = analysed.acc
    fn = analysed.source.function(loop.function)
    out: list[DataMove] = []
    for use in loop_array_uses(loop, analysis):
        if use.read_first and use.written:
            direction = "both ways"
        elif use.written:
            direction = "from device"
        elif use.read:
            direction = "to device"
        else:
            continue
        decl = array_decl(use.name, fn, analysed.source.globals)
        element = decl.type if decl is not None else "element"
        if use.box is not None and use.known:
            section = use.name + "".join(
                f"[{start.render()}:{length.render()}]" for start, length in use.box
            )
            size = _size([length for _, length in use.box], element)
        else:
            section = use.section or use.name
            size = "unknown"
        out.append(DataMove(use.name, direction, section, size))
    return tuple(out)
