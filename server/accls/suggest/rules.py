"""Pragma synthesis from the analysis facts: no model, always an answer."""

from __future__ import annotations

from dataclasses import replace

from accls.analysis import FileAnalysis, LoopFacts
from accls.frontend import Clause, Loop
from accls.suggest.clauses import data_clauses, scalar_clauses
from accls.suggest.context import Placement, placement
from accls.suggest.fortran_spelling import fortran_suggestions
from accls.suggest.host_calls import host_library_calls
from accls.suggest.levels import (
    acc_level,
    deepest,
    first_parallel,
    levels_reason,
    omp_inner_directive,
    seq_suggestion,
    tuning_clauses,
)
from accls.suggest.nest_shape import (
    Ranges,
    collapse_chain,
    cpu_collapse,
    few_iterations,
    imbalance,
    schedule_reason,
    with_range,
)
from accls.suggest.options import SuggestOptions
from accls.suggest.ordered import ordered_block
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.range_loops import range_for_reason
from accls.suggest.regions import DataRegion, propose_regions
from accls.suggest.routines import RoutineEdit, RoutineIndex, routine_edits
from accls.suggest.rules_directives import (
    atomic_pragmas,
    below_collapse,
    directive_for,
    house_style,
)
from accls.suggest.suggestion import Suggestion
from accls.suggest.user_reductions import declared_reductions

__all__ = ["reference_suggestion", "suggest_file"]


def _refuse(
    facts: LoopFacts, opts: SuggestOptions, reasons: list[str], **kw: object
) -> Suggestion:
    return Suggestion(
        loop=facts.loop,
        facts=facts,
        options=opts,
        pragma=None,
        reasons=tuple(reasons),
        **kw,  # type: ignore[arg-type]
    )


def _build(
    facts: LoopFacts,
    analysis: FileAnalysis,
    opts: SuggestOptions,
    where: Placement,
    inner: bool,
    parent_level: str | None = None,
    index: RoutineIndex | None = None,
) -> tuple[Suggestion, list[Loop], str | None]:
    """The suggestion for one parallel loop, the loops left below it, its level."""
    loop = facts.loop
    if inner:
        acc = opts.dialect is Dialect.OPENACC
        directive: str | None = "loop" if acc else omp_inner_directive(facts)
    else:
        directive = directive_for(opts, where)
    if directive is None:
        why = where.inside_loop or where.compute
        text = why.text if why is not None else "an enclosing construct"
        return _refuse(facts, opts, [f"already inside `{text}`"], inner=inner), [], None
    acc = opts.dialect is Dialect.OPENACC
    if acc and loop.cond_op == "!=":
        test = "OpenACC needs a `<`, `<=`, `>` or `>=` loop test; compilers reject `!=`"
        return _refuse(facts, opts, [test], inner=inner), [], None
    chain = [loop] if inner else collapse_chain(loop, analysis)
    if inner and acc and parent_level == "worker":
        # The innermost level: the perfectly nested, independent, rectangular
        # loops below fold into its vector lanes rather than run sequentially.
        chain = collapse_chain(loop, analysis)
    if opts.dialect is Dialect.OPENMP and opts.target is Target.CPU:
        chain = cpu_collapse(chain, analysis)
    if acc and any(c.cond_op == "!=" for c in chain):
        chain = chain[: next(k for k, c in enumerate(chain) if c.cond_op == "!=")]
    covered = {c.id for c in chain}
    below = [child for child in chain[-1].children]
    reasons: list[str] = []
    clauses: list[Clause] = []
    if len(chain) > 1:
        clauses.append(Clause("collapse", str(len(chain))))
        reasons.append(
            f"collapse({len(chain)}): loops "
            + ", ".join(f"`{c.var}`" for c in chain)
            + " are perfectly nested, independent and rectangular"
            + (
                ": one flat iteration space the compiler spreads over every level, "
                "rather than a pragma per level"
                if opts.dialect is Dialect.OPENACC or opts.target is Target.GPU
                else ""
            )
        )
    vector_below = (
        first_parallel(below, analysis) if opts.dialect is Dialect.OPENACC else []
    )
    level: str | None = None
    if opts.dialect is Dialect.OPENACC:
        taken = parent_level if inner else deepest(where.loop_levels)
        level = acc_level(taken, inner or bool(where.loop_levels), bool(vector_below))
        if level:
            clauses.append(Clause(level))
        if level in (None, "vector"):
            vector_below = []
        else:
            reasons.append(levels_reason(loop, level, vector_below, len(chain)))
            vector_below = below  # dependent loops on the way get `loop seq`
    teams_below = _teams_levels(facts, analysis, opts, directive, chain, below)
    if teams_below:
        directive = "target teams distribute"
        reasons.append(levels_reason(loop, "teams distribute", teams_below, len(chain)))
        vector_below = teams_below
    if not inner and where.compute is None:
        levels_below = first_parallel(below, analysis) if level == "gang" else []
        worker = any(first_parallel(list(c.children), analysis) for c in levels_below)
        tuning, tuning_reasons = tuning_clauses(opts, directive, worker)
        clauses.extend(tuning)
        reasons.extend(tuning_reasons)
    scalar, scalar_reasons, blocker = scalar_clauses(facts, opts, covered)
    if blocker:
        return _refuse(facts, opts, [blocker], inner=inner), below, None
    declared, declared_reasons, blocker = declared_reductions(facts, analysis, opts)
    if blocker:
        return _refuse(facts, opts, [blocker], inner=inner), below, None
    clauses.extend(scalar)
    reasons.extend(scalar_reasons)
    reasons.extend(declared_reasons)
    cpu = opts.dialect is Dialect.OPENMP and opts.target is Target.CPU
    if cpu and ordered_block(loop, analysis.source):
        clauses.append(Clause("ordered"))
        reasons.append(
            "ordered: the body's `omp ordered` block binds to this loop, which "
            "needs the clause; the block runs one iteration at a time, in order"
        )
    uneven = imbalance(loop) if cpu else ""
    if uneven and (where.compute is None or directive == "for"):
        clauses.append(Clause("schedule", "dynamic"))
        reasons.append(schedule_reason(loop, uneven))
    offload = opts.dialect is Dialect.OPENACC or opts.target is Target.GPU
    if offload and not inner and where.compute is None:
        data, data_reasons, blocker = data_clauses(facts, opts, where, analysis)
        if blocker:
            return _refuse(facts, opts, [blocker], inner=inner), below, None
        clauses.extend(data)
        reasons.extend(data_reasons)
    elif offload and where.present:
        reasons.append(
            "arrays are already on the device inside the enclosing construct"
        )
    routines: tuple[RoutineEdit, ...] = ()
    if offload and not inner:
        routines, routine_reasons, blocker = routine_edits(
            loop, analysis, opts.dialect, index or RoutineIndex(analysis.source)
        )
        if blocker:
            return _refuse(facts, opts, [blocker], inner=inner), below, None
        reasons.extend(routine_reasons)
    atomics = atomic_pragmas(
        facts,
        opts.dialect,
        analysis.source.data,
        fortran=analysis.source.language == "fortran",
    )
    if atomics is None:
        blocked = "an indirect update cannot be made atomic here"
        return _refuse(facts, opts, [blocked], inner=inner), below, None
    if atomics:
        names = sorted({r.name for r in facts.atomics})
        reasons.append(
            "atomic updates of "
            + ", ".join(f"`{n}`" for n in names)
            + ": several iterations may update the same element"
        )
    head = [
        "no loop-carried dependence"
        + ("" if not facts.loop.refs else " (exact dependence test)")
    ]
    head.extend(facts.call_effects)
    if facts.substitutions:
        head.append("forward substitution: " + ", ".join(facts.substitutions))
    head.extend(facts.assumptions)
    pragma = Pragma(opts.dialect, directive, tuple(clauses))
    return (
        Suggestion(
            loop=loop,
            facts=facts,
            options=opts,
            pragma=pragma,
            reasons=tuple(head + reasons),
            inner=inner,
            collapsed=tuple(c.id for c in chain[1:]),
            atomics=atomics,
            routines=routines + declared,
        ),
        vector_below,
        level,
    )


def _teams_levels(
    facts: LoopFacts,
    analysis: FileAnalysis,
    opts: SuggestOptions,
    directive: str,
    chain: list[Loop],
    below: list[Loop],
) -> list[Loop]:
    """OpenMP offload: the inner loops that take `parallel for` under `teams`.

    Only for a top-level `target teams distribute parallel for` that cannot
    collapse, whose inner parallel loops each get a pragma of their own.
    """
    if directive != "target teams distribute parallel for" or len(chain) > 1:
        return []
    found: list[Loop] = []
    for child in first_parallel(below, analysis):
        if few_iterations(child, {}) is not None or child.pragmas:
            continue
        where = placement(child, opts.dialect)
        trial, _, _ = _build(analysis.of(child), analysis, opts, where, inner=True)
        if trial.pragma is not None:
            found.append(child)
    return found


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
    own = [p for p in loop.pragmas if p.dialect == opts.dialect.sentinel]
    if own:
        out.append(
            _refuse(
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
    nested = opts.dialect is Dialect.OPENMP or "vector" in where.loop_levels
    if where.inside_loop is not None and not forced_inner and nested:
        return
    if not facts.parallel:
        if not forced_inner:
            # Every loop that was a candidate says why it was refused; inner loops
            # of a parallelized loop simply stay sequential inside it.
            out.append(_refuse(facts, opts, [o.message for o in facts.obstacles]))
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
    heap = (
        host_library_calls(
            loop, analysis.source, analysis.program, opts.dialect.sentinel
        )
        if offload
        else ()
    )
    if opts.dialect is Dialect.OPENACC and loop.range_for is not None:
        heap = (range_for_reason(loop.range_for),)
    if heap:
        if not forced_inner:
            out.append(_refuse(facts, opts, list(heap)))
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
            _refuse(
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
    suggestion, below, level = _build(
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
    rebuilt, _, _ = _build(
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
        return _refuse(facts, opts, [o.message for o in facts.obstacles])
    suggestion, _, _ = _build(
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
    return found


def _suggest_all(
    analysis: FileAnalysis, opts: SuggestOptions, *, regions: bool
) -> tuple[Suggestion, ...]:
    opts = house_style(analysis, opts)
    out: list[Suggestion] = []
    index = RoutineIndex(analysis.source)  # the file's prototypes, found once
    for nest in analysis.source.nests:
        _suggest_loop(nest, analysis, opts, out, root=True, index=index)
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
