"""One parallel loop's pragma built from its facts where it stands (`build_loop`)."""

from __future__ import annotations

from accls.analysis import FileAnalysis, LoopFacts
from accls.analysis.team_loops import team_loop_obstacle
from accls.frontend import Clause, Loop
from accls.suggest.clauses import data_clauses, scalar_clauses
from accls.suggest.context import Placement, placement
from accls.suggest.lane_reductions import lane_reason, lane_reductions
from accls.suggest.levels import (
    acc_level,
    deepest,
    first_parallel,
    levels_reason,
    omp_inner_directive,
    tuning_clauses,
)
from accls.suggest.nest_shape import (
    MAX_COLLAPSE,
    collapse_chain,
    collapse_stop,
    cpu_collapse,
    few_iterations,
    imbalance,
    schedule_reason,
)
from accls.suggest.options import SuggestOptions
from accls.suggest.ordered import ordered_block
from accls.suggest.perfect_levels import per_level_reason, short_level
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.routines import RoutineEdit, RoutineIndex, routine_edits
from accls.suggest.rules_directives import atomic_pragmas, directive_for
from accls.suggest.suggestion import Suggestion
from accls.suggest.user_reductions import declared_reductions

__all__ = ["build_loop", "refuse"]


def refuse(
    facts: LoopFacts, opts: SuggestOptions, reasons: list[str], **kw: object
) -> Suggestion:
    """The refusal of a loop: no pragma, and the reasons."""
    return Suggestion(
        loop=facts.loop,
        facts=facts,
        options=opts,
        pragma=None,
        reasons=tuple(reasons),
        **kw,  # type: ignore[arg-type]
    )


def build_loop(
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
        return refuse(facts, opts, [f"already inside `{text}`"], inner=inner), [], None
    if not inner and (
        (directive == "for" and opts.dialect is Dialect.OPENMP)
        or (directive == "loop" and opts.dialect is Dialect.OPENACC)
    ):
        shared_out = team_loop_obstacle(facts, analysis.source)
        if shared_out is not None:
            return refuse(facts, opts, [shared_out], inner=inner), [], None
    acc = opts.dialect is Dialect.OPENACC
    if acc and loop.cond_op == "!=":
        test = "OpenACC needs a `<`, `<=`, `>` or `>=` loop test; compilers reject `!=`"
        return refuse(facts, opts, [test], inner=inner), [], None
    limit: int | None = 1 if inner else MAX_COLLAPSE
    if inner and acc and parent_level == "worker":
        # The innermost level: every perfectly nested, independent, rectangular
        # loop below folds into its vector lanes rather than run sequentially.
        limit = None
    chain = collapse_chain(loop, analysis, limit)
    if opts.dialect is Dialect.OPENMP and opts.target is Target.CPU:
        chain = cpu_collapse(chain, analysis)
    if acc and any(c.cond_op == "!=" for c in chain):
        chain = chain[: next(k for k, c in enumerate(chain) if c.cond_op == "!=")]
    # Under a user's `worker` loop only the vector level is left: it folds the nest.
    last = deepest(where.loop_levels) == "worker"
    per_level = (
        per_level_reason(chain, analysis) if acc and not inner and not last else ""
    )
    if per_level:
        chain = chain[:1]
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
            + (
                f", since {short}"
                if acc and (short := short_level(chain, analysis))
                else ""
            )
        )
    vector_below = (
        first_parallel(below, analysis) if opts.dialect is Dialect.OPENACC else []
    )
    level: str | None = None
    if opts.dialect is Dialect.OPENACC:
        taken = parent_level if inner else deepest(where.loop_levels)
        nested = inner or bool(where.loop_levels)
        # Below a gang, reductions alone below take no level: this loop is vector.
        lanes = nested and taken in (None, "gang")
        lanes = lanes and lane_reductions(loop, vector_below, analysis)
        level = acc_level(taken, nested, bool(vector_below) and not lanes)
        if level:
            clauses.append(Clause(level))
        if lanes:
            reasons.append(lane_reason(loop, vector_below))  # they get `loop seq`
        elif level in (None, "vector"):
            vector_below = []
        else:
            stop = per_level or collapse_stop(chain, analysis, limit)
            reasons.append(levels_reason(loop, level, vector_below, stop))
            vector_below = below  # dependent loops on the way get `loop seq`
    teams_below = _teams_levels(facts, analysis, opts, directive, chain, below)
    if teams_below:
        directive = "target teams distribute"
        stop = collapse_stop(chain, analysis, limit)
        reasons.append(levels_reason(loop, "teams distribute", teams_below, stop))
        vector_below = teams_below
    if not inner and where.compute is None:
        levels_below = first_parallel(below, analysis) if level == "gang" else []
        worker = any(
            (kids := first_parallel(list(c.children), analysis))
            and not lane_reductions(c, kids, analysis)
            for c in levels_below
        )
        tuning, tuning_reasons = tuning_clauses(opts, directive, worker)
        clauses.extend(tuning)
        reasons.extend(tuning_reasons)
    scalar, scalar_reasons, blocker = scalar_clauses(facts, opts, covered)
    if blocker:
        return refuse(facts, opts, [blocker], inner=inner), below, None
    declared, declared_reasons, blocker = declared_reductions(facts, analysis, opts)
    if blocker:
        return refuse(facts, opts, [blocker], inner=inner), below, None
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
            return refuse(facts, opts, [blocker], inner=inner), below, None
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
            return refuse(facts, opts, [blocker], inner=inner), below, None
        reasons.extend(routine_reasons)
    atomics = atomic_pragmas(
        facts,
        opts.dialect,
        analysis.source.data,
        fortran=analysis.source.language == "fortran",
    )
    if atomics is None:
        blocked = "an indirect update cannot be made atomic here"
        return refuse(facts, opts, [blocked], inner=inner), below, None
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
        + (
            ", once each iteration has its own " + ", ".join(f"`{n}`" for n in _own)
            if (_own := (*facts.private_arrays, *dict(facts.private_blocks)))
            else ""
        )
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
        trial, _, _ = build_loop(analysis.of(child), analysis, opts, where, inner=True)
        if trial.pragma is not None:
            found.append(child)
    return found
