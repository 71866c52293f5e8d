"""Pragma synthesis from the analysis facts: no model, always an answer."""

from __future__ import annotations

from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.frontend import Loop
from accls.frontend.constructs import standalone
from accls.suggest.context import placement
from accls.suggest.fortran_spelling import fortran_suggestions
from accls.suggest.held_copies import held_refusals
from accls.suggest.host_calls import host_library_calls
from accls.suggest.lane_reductions import lane_seq
from accls.suggest.level_words import expert_level_words
from accls.suggest.levels import seq_suggestion
from accls.suggest.loop_pragma import build_loop, refuse
from accls.suggest.nest_shape import Ranges, few_iterations, with_range
from accls.suggest.options import SuggestOptions
from accls.suggest.pointer_stores import pointer_stores
from accls.suggest.pragma import Dialect, Target
from accls.suggest.range_loops import range_for_reason
from accls.suggest.regions import DataRegion, propose_regions
from accls.suggest.routine_placement import orphan_reason, routine_placement
from accls.suggest.routines import RoutineIndex
from accls.suggest.rules_directives import below_collapse, house_style
from accls.suggest.suggestion import Suggestion
from accls.suggest.table_pointers import table_pointers

__all__ = ["reference_suggestion", "suggest_file"]


def _suggest_loop(
    loop: Loop,
    analysis: FileAnalysis,
    opts: SuggestOptions,
    out: list[Suggestion],
    *,
    root: bool,
    forced_inner: bool = False,
    parent_level: str | None = None,
    ranges: Ranges | None = None,
    index: RoutineIndex | None = None,
) -> None:
    facts = analysis.of(loop)
    ranges = ranges or {}
    inner_ranges = with_range(loop, ranges)
    where = placement(loop, opts.dialect)
    own = [
        p
        for p in loop.pragmas
        if p.dialect == opts.dialect.sentinel and not standalone(p)
    ]
    if own:
        out.append(
            refuse(
                facts,
                opts,
                [f"already annotated: `{own[0].text}`"],
                existing=own[0].text,
                inner=not root,
            )
        )
        for child in below_collapse(loop, own):
            _suggest_loop(
                child, analysis, opts, out, root=False, ranges=inner_ranges, index=index
            )
        return
    if forced_inner and parent_level == "vector":
        # A reduction below the vector level runs in one lane (lane_reductions).
        seq = lane_seq(facts, opts)
        if seq is not None:
            out.append(seq)
        return
    routine = routine_placement(loop, analysis, opts, where)
    if isinstance(routine, str):
        if not forced_inner:
            for each in loop.walk():
                out.append(refuse(analysis.of(each), opts, [routine], inner=not root))
        return
    orphaned = routine is not where
    where = routine
    nested = opts.dialect is Dialect.OPENMP or "vector" in where.loop_levels
    if where.inside_loop is not None and not forced_inner and nested:
        return
    if not facts.parallel:
        if not forced_inner:
            # Every loop that was a candidate says why it was refused; inner loops
            # of a parallelized loop simply stay sequential inside it.
            out.append(refuse(facts, opts, [o.message for o in facts.obstacles]))
        elif parent_level in ("gang", "worker"):
            seq = seq_suggestion(facts, opts)
            if seq is not None:
                out.append(seq)
            for child in loop.children:
                _suggest_loop(
                    child,
                    analysis,
                    opts,
                    out,
                    root=False,
                    forced_inner=True,
                    parent_level=parent_level,
                    index=index,
                )
            return
        for child in loop.children:
            _suggest_loop(
                child, analysis, opts, out, root=False, ranges=inner_ranges, index=index
            )
        return
    offload = opts.dialect is Dialect.OPENACC or opts.target is Target.GPU
    heap: tuple[str, ...] = ()
    if offload:
        heap = host_library_calls(
            loop, analysis.source, analysis.program, opts.dialect.sentinel
        )
        if not loop.fortran:
            heap += pointer_stores(loop, analysis.source)
            heap += table_pointers(loop, facts.loop)
    if opts.dialect is Dialect.OPENACC and loop.range_for is not None:
        heap = (range_for_reason(loop.range_for),)
    if heap:
        if not forced_inner:
            out.append(refuse(facts, opts, list(heap)))
        for child in loop.children:
            _suggest_loop(
                child, analysis, opts, out, root=False, ranges=inner_ranges, index=index
            )
        return
    few = few_iterations(loop, ranges)
    # A few iterations pay for a parallel region only when each does real work
    # (an inner loop or a call), and never when the region opens once per
    # iteration of an enclosing sequential loop.
    trivial = not loop.children and not loop.calls
    if (
        few is not None
        and not forced_inner
        and where.compute is None
        and (not root or trivial)
    ):
        where_it_is = (
            "inside a sequential loop: opening a parallel region in every "
            "iteration of the outer loop"
            if not root
            else "with no inner loop or call: opening a parallel region"
        )
        out.append(
            refuse(
                facts,
                opts,
                [f"only {few} iterations, {where_it_is} costs more than it saves"],
            )
        )
        for child in loop.children:
            _suggest_loop(
                child, analysis, opts, out, root=False, ranges=inner_ranges, index=index
            )
        return
    suggestion, below, level = build_loop(
        facts,
        analysis,
        opts,
        where,
        inner=forced_inner,
        parent_level=parent_level,
        index=index,
    )
    if suggestion.pragma is None and not root and not forced_inner:
        return
    if orphaned and suggestion.pragma is not None:
        suggestion = replace(
            suggestion, reasons=(*suggestion.reasons, orphan_reason(where))
        )
    out.append(suggestion)
    if suggestion.pragma is None:
        for child in loop.children:
            _suggest_loop(
                child, analysis, opts, out, root=False, ranges=inner_ranges, index=index
            )
        return
    for child in below:
        _suggest_loop(
            child,
            analysis,
            opts,
            out,
            root=False,
            forced_inner=True,
            parent_level=level,
            index=index,
        )


def _in_region(
    suggestion: Suggestion,
    region: DataRegion,
    analysis: FileAnalysis,
    index: RoutineIndex,
) -> Suggestion:
    """The loop's suggestion rebuilt to find the region's arrays present."""
    where = placement(suggestion.loop, suggestion.options.dialect)
    inside = replace(where, present=(*where.present, *region.present))
    rebuilt, _, _ = build_loop(
        suggestion.facts, analysis, suggestion.options, inside, False, index=index
    )
    if rebuilt.pragma is None:
        return suggestion
    return replace(rebuilt, region=region)


def reference_suggestion(
    analysis: FileAnalysis, loop: Loop, opts: SuggestOptions
) -> Suggestion:
    """What the analysis would write on `loop`, ignoring any pragma already on it."""
    opts = house_style(analysis, opts)
    facts = analysis.of(loop)
    if not facts.parallel:
        return refuse(facts, opts, [o.message for o in facts.obstacles])
    suggestion, _, _ = build_loop(
        facts, analysis, opts, placement(loop, opts.dialect), False
    )
    return suggestion


def suggest_file(
    analysis: FileAnalysis, opts: SuggestOptions, *, regions: bool = True
) -> tuple[Suggestion, ...]:
    """Suggestions for every loop nest of a file, outermost loops first.

    With `regions`, offloaded loops that share arrays are also grouped into a
    proposed data region, and their pragmas use `present` for its arrays.
    """
    found = _suggest_all(analysis, opts, regions=regions)
    if analysis.source.language == "fortran":
        return fortran_suggestions(found, analysis.source)
    return expert_level_words(found)


def _suggest_all(
    analysis: FileAnalysis, opts: SuggestOptions, *, regions: bool
) -> tuple[Suggestion, ...]:
    opts = house_style(analysis, opts)
    out: list[Suggestion] = []
    index = RoutineIndex(analysis.source)  # the file's prototypes, found once
    for nest in analysis.source.nests:
        _suggest_loop(nest, analysis, opts, out, root=True, index=index)
    out = held_refusals(analysis, out)
    if not regions:
        return tuple(out)
    offloaded = [
        s.loop
        for s in out
        if s.pragma is not None and not s.inner and s.existing is None
    ]
    for region in propose_regions(analysis, offloaded, opts):
        members = {loop.id for loop in region.loops}
        out = [
            _in_region(s, region, analysis, index)
            if s.loop.id in members and not s.inner
            else s
            for s in out
        ]
    return tuple(out)
