"""The hybrid pipeline: analysis and model candidates, validated, repaired, ranked.

For each loop the model may answer, its candidates are parsed with the one
pragma parser, repaired with the analysis facts (missing reductions and
privates, `present` inside a data region, wider sections), then compiled and
race-checked, where the compile check also drops clauses the compiler
rejects and compiles again. Survivors are ranked: validated first, then
agreement with the analysis, then the model's score; the analysis wins ties.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from accls.analysis import AnalysisOptions, FileAnalysis, analyze
from accls.frontend import SourceFile, parse_source
from accls.hybrid.candidates import (
    agreement,
    assumed_reference,
    caution_for,
    draft_candidates,
    loops_to_prompt,
    within_loops,
)
from accls.hybrid.pool import BackendPool
from accls.suggest import (
    Alternative,
    Pragma,
    Source,
    Suggestion,
    SuggestOptions,
    build_prompt,
    suggest_file,
)
from accls.suggest.backends import Backend, BackendKind, BackendSettings
from accls.suggest.fortran_spelling import fortran_suggestions
from accls.validation import CompilerSettings, Validation, validate

__all__ = ["HybridResult", "suggest_hybrid"]


@dataclass(frozen=True, slots=True, kw_only=True)
class HybridResult:
    """Suggestions after the hybrid pipeline, their validation, and what was dropped."""

    suggestions: tuple[Suggestion, ...]
    validation: dict[int, Validation]  # loops with a checked pragma only
    alternatives: dict[int, tuple[Alternative, ...]]
    warnings: tuple[str, ...] = ()
    model_seconds: float = 0.0  # time spent in the backend's `complete`
    prompts: int = 0  # loops the model was asked about


def _validate(
    text: str,
    path: str,
    suggestions: Sequence[Suggestion],
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str],
) -> tuple[tuple[Suggestion, ...], dict[int, Validation]]:
    if compiler is None:
        return tuple(suggestions), {}
    return validate(text, path, suggestions, compiler, include_dirs)


def _verdict(validation: Validation | None) -> int:
    """2 validated, 1 unverified (no compiler) but race-free, 0 failed."""
    if validation is None or not validation.race_free:
        return 0
    compiles = validation.compiles
    return 2 if compiles is True else 1 if compiles is None else 0


def _why_withdrawn(s: Suggestion) -> str:
    return s.withdrawn if s.withdrawn is not None else "not validated"


@dataclass(frozen=True, slots=True)
class _Entry:
    suggestion: Suggestion
    validation: Validation | None
    agree: float


def _rank_key(entry: _Entry) -> tuple[int, float, float, int]:
    s = entry.suggestion
    is_analysis = s.source is Source.ANALYSIS
    score = 0.0 if is_analysis else (s.score if s.score is not None else -1e9)
    return (_verdict(entry.validation), entry.agree, score, int(is_analysis))


def _choose(
    base: Suggestion,
    base_validation: Validation | None,
    model: list[_Entry],
    dropped: list[Alternative],
) -> tuple[Suggestion, Validation | None, tuple[Alternative, ...]]:
    """The best candidate for one loop, with every other one as an alternative."""
    refused = base.pragma is None
    entries = [] if refused else [_Entry(base, base_validation, 1.0)]
    for entry in model:
        verdict = _verdict(entry.validation)
        if refused and verdict < 2:
            why = (
                "the analysis refused this loop and the candidate is not validated"
                + ("" if entry.validation is not None else " (no compile check)")
            )
            dropped.append(_alternative(entry.suggestion, why))
            continue
        entries.append(entry)
    if not entries:
        return base, base_validation, tuple(dropped)
    entries.sort(key=_rank_key, reverse=True)
    best = entries[0]
    for loser in entries[1:]:
        dropped.append(_alternative(loser.suggestion, _lost(loser, best)))
    chosen = best.suggestion
    if chosen.source is not Source.ANALYSIS and refused:
        chosen = replace(chosen, caution=caution_for(base.facts))
    return chosen, best.validation, tuple(dropped)


def _alternative(s: Suggestion, why: str) -> Alternative:
    text = s.pragma.render() if s.pragma is not None else "(none)"
    return Alternative(text, s.source, why)


def _lost(loser: _Entry, best: _Entry) -> str:
    winner = best.suggestion.source
    if (
        loser.suggestion.pragma is not None
        and best.suggestion.pragma is not None
        and loser.suggestion.pragma.render() == best.suggestion.pragma.render()
    ):
        return f"the same pragma as the {winner} one"
    if _verdict(loser.validation) < _verdict(best.validation):
        return f"ranked below the {winner} pragma: validated less far"
    if loser.agree < best.agree:
        return f"ranked below the {winner} pragma: agrees less with the analysis"
    return f"ranked below the {winner} pragma: lower model score"


def spelled(s: Suggestion, source: SourceFile) -> Suggestion:
    """A model's candidate written in the file's language (Fortran directives)."""
    if source.language == "fortran":
        return fortran_suggestions((s,), source)[0]
    return s


def suggest_hybrid(
    text: str,
    path: str,
    options: SuggestOptions,
    analysis_options: AnalysisOptions,
    backend_settings: BackendSettings,
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str] = (),
    *,
    backend: Backend | None = None,
    pool: BackendPool | None = None,
    analysis: FileAnalysis | None = None,
    loops: frozenset[int] | None = None,
    regions: bool = True,
) -> HybridResult:
    """Suggestions for every loop of a file from the analysis and, if set, a model.

    `loops` limits the work to those loop ids and the loops inside them (an
    editor resolving one code action); `regions` as in `suggest_file`. `pool`
    keeps loaded models and failures between calls (a fresh one when None);
    `backend` answers instead of the pool's (a model the caller loaded).
    """
    if analysis is None:
        source = parse_source(text, path, include_dirs)
        analysis = analyze(source, analysis_options)
    source = analysis.source
    base_raw = suggest_file(analysis, options, regions=regions)
    if loops is not None:
        base_raw = within_loops(base_raw, loops)
    base, validation = _validate(text, path, base_raw, compiler, include_dirs)
    alternatives: dict[int, tuple[Alternative, ...]] = {}
    if backend is None and backend_settings.kind is BackendKind.ANALYSIS:
        return HybridResult(suggestions=base, validation=validation, alternatives={})
    # Loops are chosen on the unvalidated answers: a withdrawn analysis pragma
    # still marks a construct the model must not nest into or around.
    raw_by_id = {s.loop.id: s for s in base_raw}
    asked = loops_to_prompt(base_raw)
    if not asked:
        return HybridResult(suggestions=base, validation=validation, alternatives={})
    prompts = [build_prompt(source, s.loop, options) for s in asked]
    started = time.perf_counter()
    pool = pool if pool is not None else BackendPool()
    answers, warning = pool.ask(backend_settings, backend, prompts)
    seconds = time.perf_counter() - started
    warnings = (warning,) if warning else ()
    if answers is None:
        return HybridResult(
            suggestions=base,
            validation=validation,
            alternatives={},
            warnings=warnings,
            model_seconds=seconds,
            prompts=len(prompts),
        )
    by_id = {s.loop.id: s for s in base}
    dropped: dict[int, list[Alternative]] = {s.loop.id: [] for s in asked}
    drafts: dict[int, list[Suggestion]] = {}
    for s, found in zip(asked, answers, strict=True):
        current = by_id[s.loop.id]
        reference = assumed_reference(analysis, s.loop, options)
        for made in draft_candidates(current, reference, found):
            if made.dropped is not None:
                dropped[s.loop.id].append(made.dropped)
            elif made.suggestion is not None:
                drafts.setdefault(s.loop.id, []).append(
                    spelled(made.suggestion, source)
                )
    pragmas = {key: raw.pragma for key, raw in raw_by_id.items()}
    checked = _validate_rounds(
        text, path, drafts, compiler, include_dirs, dropped, pragmas
    )
    out: list[Suggestion] = []
    for s in base:
        key = s.loop.id
        if key not in dropped:
            out.append(s)
            continue
        chosen, chosen_validation, alts = _choose(
            s, validation.get(key), checked.get(key, []), dropped[key]
        )
        raw = raw_by_id[key]
        if chosen is not s and raw.pragma is not None and s.pragma is None:
            # The model replaced an analysis pragma the checks withdrew.
            alts = (*alts, _alternative(raw, _why_withdrawn(s)))
        out.append(replace(chosen, alternatives=alts))
        if chosen_validation is None:
            validation.pop(key, None)
        else:
            validation[key] = chosen_validation
        if alts:
            alternatives[key] = alts
    return HybridResult(
        suggestions=tuple(out),
        validation=validation,
        alternatives=alternatives,
        warnings=warnings,
        model_seconds=seconds,
        prompts=len(prompts),
    )


def _validate_rounds(
    text: str,
    path: str,
    drafts: dict[int, list[Suggestion]],
    compiler: CompilerSettings | None,
    include_dirs: Sequence[str],
    dropped: dict[int, list[Alternative]],
    analysis_pragmas: dict[int, Pragma | None],
) -> dict[int, list[_Entry]]:
    """Validate every loop's k-th candidate together, for k = 0, 1, ...

    The checks key results by loop, so one call takes one candidate per loop:
    a file with n candidates per loop costs n compile batches, not n x loops.
    """
    out: dict[int, list[_Entry]] = {}
    rounds = max((len(v) for v in drafts.values()), default=0)
    for k in range(rounds):
        batch = [found[k] for found in drafts.values() if k < len(found)]
        checked, validation = _validate(text, path, batch, compiler, include_dirs)
        for before, after in zip(batch, checked, strict=True):
            key = before.loop.id
            pragma = after.pragma
            if pragma is None:
                dropped[key].append(_alternative(before, _why_withdrawn(after)))
                continue
            if before.pragma is not None and pragma.render() != before.pragma.render():
                # The compile check dropped a clause the compiler rejected.
                after = replace(after, source=Source.REPAIRED)
            agree = agreement(pragma, analysis_pragmas.get(key))
            out.setdefault(key, []).append(_Entry(after, validation.get(key), agree))
    return out
