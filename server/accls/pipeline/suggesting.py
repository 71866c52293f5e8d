"""Suggest for this text: the one path from C text to validated suggestions.

The CLI, the language server and training call `suggest_text`; it alone
chooses between the analysis and the hybrid (a model backend), builds the
compiler settings, and runs the compile check and the race re-check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from accls.analysis import AnalysisOptions, FileAnalysis, ProgramSummaries, analyze
from accls.analysis.cost import Estimate, estimate_loop
from accls.frontend import HeaderContext, SourceFile, Span, parse_source
from accls.hybrid import BackendPool, suggest_hybrid
from accls.hybrid.candidates import within_loops
from accls.pipeline.sinks import WarningSink, discard
from accls.pipeline.whole_file import whole_file_passes
from accls.settings import Settings
from accls.suggest import (
    Alternative,
    Dialect,
    Suggestion,
    SuggestOptions,
    Target,
    account_for_loops,
    suggest_file,
)
from accls.suggest.backends import Backend, BackendKind
from accls.validation import CompilerSettings, Validation, compiler_available, validate
from accls.validation.offload import offload_check

__all__ = [
    "SuggestResult",
    "analysis_options",
    "compiler_settings",
    "estimates_for",
    "profitable_only",
    "suggest_text",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class SuggestResult:
    """Suggestions for a text after validation, and what the caller shows with them."""

    suggestions: tuple[Suggestion, ...]
    validation: Mapping[int, Validation]  # by loop id; only loops that were checked
    alternatives: Mapping[int, tuple[Alternative, ...]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()  # the model backend's (also sent to the sink)
    unread: tuple[tuple[Span, str], ...] = ()  # `for` keywords not analysed, and why
    model_seconds: float = 0.0  # time spent in the model backend
    prompts: int = 0  # loops the model was asked about
    estimates: Mapping[int, Estimate] = field(default_factory=dict)  # by loop id
    analysis: FileAnalysis | None = None  # the file's analysis (not for `listed`)


def estimates_for(
    analysis: FileAnalysis, suggestions: Sequence[Suggestion]
) -> dict[int, Estimate]:
    """The cost estimate of each pragma a loop would get on its own (not inner ones)."""
    out: dict[int, Estimate] = {}
    for s in suggestions:
        if s.pragma is None or s.inner or s.existing is not None:
            continue
        offload = s.options.dialect is Dialect.OPENACC or s.options.target is Target.GPU
        out[s.loop.id] = estimate_loop(
            analysis, s.loop, offload, collapsed=1 + len(s.collapsed)
        )
    return out


def profitable_only(
    result: SuggestResult, *, every: bool
) -> tuple[tuple[Suggestion, ...], int]:
    """The suggestions `annotate` inserts, and how many the cost model left out.

    A loop the cost model finds unprofitable keeps no pragma, and neither do the
    inner-loop pragmas inside it; with `every`, every safe pragma stays.
    """
    dropped = [
        s.loop.span
        for s in result.suggestions
        if not every
        and (estimate := result.estimates.get(s.loop.id)) is not None
        and estimate.profitable is False
    ]
    if not dropped:
        return result.suggestions, 0

    def inside(s: Suggestion) -> bool:
        start = s.loop.span.start_byte
        return any(d.start_byte <= start < d.end_byte for d in dropped)

    return tuple(s for s in result.suggestions if not inside(s)), len(dropped)


def analysis_options(
    settings: Settings,
    options: SuggestOptions | None = None,
    program: ProgramSummaries | None = None,
) -> AnalysisOptions:
    """The analysis options for suggesting with `options` (the settings' default).

    `program`: the summaries of the other files of the project, if indexed.
    """
    options = options if options is not None else settings.suggest_options
    return AnalysisOptions(
        settings.assume_no_alias,
        options.dialect.sentinel,
        program=program,
        reassociate_float=settings.reassociate_float,
    )


def compiler_settings(
    settings: Settings, include_dirs: Sequence[str] = ()
) -> CompilerSettings:
    """The compile check's compiler, flags and include folders."""
    return replace(settings.compiler, include_dirs=tuple(include_dirs))


def _checked(
    text: str,
    path: str,
    suggestions: tuple[Suggestion, ...],
    compiler: CompilerSettings | None,
    include_dirs: tuple[str, ...],
    warnings: WarningSink,
    context: HeaderContext | None = None,
) -> tuple[tuple[Suggestion, ...], dict[int, Validation]]:
    """The analysis' suggestions after the compile check and the race re-check.

    `context`, the build's view of the directives, lets the race check read the
    annotated text as the analysis read the original.
    """
    if compiler is None:
        return suggestions, {}
    if not compiler_available(compiler):
        warnings(
            f"compiler '{compiler.cc}' not found; suggestions are unverified "
            '("compiles": null)'
        )
        return validate(text, path, suggestions, compiler, include_dirs, context)
    offloaded = [s.options for s in suggestions if s.pragma is not None and s.offloaded]
    if not offloaded:
        return validate(text, path, suggestions, compiler, include_dirs, context)
    check = offload_check(compiler.cc, offloaded[0].dialect, offloaded[0].gpu)
    compiler = replace(compiler, flags=(*compiler.flags, *check.flags))
    found, validation = validate(
        text, path, suggestions, compiler, include_dirs, context
    )
    if check.skipped is None:
        return found, validation
    warnings(check.skipped)
    note = f"offload: {check.skipped}"
    return found, {
        k: replace(v, checks=(*v.checks, note)) for k, v in validation.items()
    }


def _unread(source: SourceFile) -> tuple[tuple[Span, str], ...]:
    unread = tuple((span, "in code that does not parse") for span in source.stray_loops)
    return (
        unread
        + tuple(
            (span, "in an #if branch the build does not compile")
            for span in source.skipped_loops
        )
        + source.unread_loops
    )


def suggest_text(
    text: str,
    path: str,
    settings: Settings,
    *,
    options: SuggestOptions | None = None,
    include_dirs: Sequence[str] | None = None,
    context: HeaderContext | None = None,
    source: SourceFile | None = None,
    listed: Sequence[Suggestion] | None = None,
    loops: frozenset[int] | None = None,
    regions: bool = True,
    every_loop: bool = False,
    backend: Backend | None = None,
    backends: BackendPool | None = None,
    warnings: WarningSink = discard,
    program: ProgramSummaries | None = None,
    analysis: FileAnalysis | None = None,
) -> SuggestResult:
    """Suggestions for the loops of `text`, validated as `settings` ask.

    - `options`: model, target and construct (default: `settings.suggest_options`);
      `include_dirs` default to `settings.include_paths`.
    - `context`: the build's preprocessor view of the directives; `source`: `text`
      already parsed (with that context), so it is not parsed again.
    - `listed`: suggestions an editor listed for one loop and the loops inside it;
      they are checked (the model, if set, answers for their first loop) and come
      back in the same order. `loops` limits the work to those loop ids and the
      loops inside them; `regions` proposes data regions (`suggest_file`).
    - `every_loop`: one suggestion for each loop that was read.
    - `backend`: a model the caller loaded; `backends`: the caller's pool of loaded
      models and recent failures (a fresh one per call when None).
    - `warnings`: where warnings go (a missing compiler, a model server down).
    - `program`: the other files' function summaries (the workspace index).
    - `analysis`: `source` already analysed with `analysis_options(settings,
      options, program)`, so it is not analysed again.
    """
    options = options if options is not None else settings.suggest_options
    include = tuple(settings.include_paths if include_dirs is None else include_dirs)
    compiler = compiler_settings(settings, include) if settings.validate else None
    hybrid = backend is not None or settings.backend.kind is not BackendKind.ANALYSIS
    if listed is not None:
        if not hybrid or not listed:
            found, validation = _checked(
                text, path, tuple(listed), compiler, include, warnings, context
            )
            return SuggestResult(suggestions=found, validation=validation)
        loops = frozenset({listed[0].loop.id})
    if source is None:
        source = parse_source(text, path, include, context=context)
    assumed = analysis_options(settings, options, program)
    if analysis is None or analysis.source is not source:
        analysis = analyze(source, assumed)
    if not hybrid:
        found = suggest_file(analysis, options, regions=regions)
        # `text` is a whole file here (an editor's slice of one function comes
        # `listed`): its calls are all seen.
        found = whole_file_passes(analysis, found)
        if loops is not None:
            found = within_loops(found, loops)
        found, validation = _checked(
            text, path, found, compiler, include, warnings, context
        )
        if every_loop:
            found = account_for_loops(analysis, found)
        return SuggestResult(
            suggestions=found,
            validation=validation,
            unread=_unread(source),
            estimates=estimates_for(analysis, found),
            analysis=analysis,
        )
    result = suggest_hybrid(
        text,
        path,
        options,
        assumed,
        settings.backend,
        compiler,
        include,
        backend=backend,
        pool=backends,
        analysis=analysis,
        loops=loops,
        regions=regions,
    )
    for warning in result.warnings:
        warnings(warning)
    found, validation = result.suggestions, result.validation
    if listed is not None:
        by_id = {s.loop.id: s for s in found}
        found = tuple(by_id.get(s.loop.id, s) for s in listed)
        validation = {
            s.loop.id: validation[s.loop.id] for s in found if s.loop.id in validation
        }
    elif every_loop:
        found = account_for_loops(analysis, found)
    return SuggestResult(
        suggestions=found,
        validation=validation,
        alternatives=result.alternatives,
        warnings=result.warnings,
        unread=_unread(source),
        model_seconds=result.model_seconds,
        prompts=result.prompts,
        estimates=estimates_for(analysis, found),
        analysis=analysis,
    )
