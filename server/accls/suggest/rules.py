"""Pragma synthesis from the analysis facts: no model, always an answer."""

from __future__ import annotations

from dataclasses import replace

from accls.analysis import FileAnalysis, LoopFacts
from accls.frontend import Clause, Directive, Loop, RedOp
from accls.suggest.clauses import data_clauses, scalar_clauses
from accls.suggest.context import Placement, placement
from accls.suggest.host_calls import host_library_calls
from accls.suggest.nest_shape import (
    Ranges,
    collapse_chain,
    few_iterations,
    imbalanced,
    with_range,
)
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.regions import DataRegion, propose_regions
from accls.suggest.suggestion import Atomic, Suggestion

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


def _atomics(
    facts: LoopFacts, dialect: Dialect, text: bytes
) -> tuple[Atomic, ...] | None:
    """Atomic pragmas for histogram-style updates; None if one cannot be placed."""
    out: list[Atomic] = []
    pragma = Pragma(dialect, "atomic update")
    for ref in facts.atomics:
        line_start = text.rfind(b"\n", 0, ref.span.start_byte) + 1
        if text[line_start : ref.span.start_byte].strip():
            return None  # the statement does not start its line
        if ref.reduction not in (
            RedOp.ADD,
            RedOp.MUL,
            RedOp.BAND,
            RedOp.BOR,
            RedOp.BXOR,
        ):
            return None
        out.append(Atomic(ref.span, pragma))
    return tuple(out)


def _directive(opts: SuggestOptions, where: Placement) -> str | None:
    if opts.dialect is Dialect.OPENACC:
        if where.compute is not None:
            return "loop"  # in a `serial` region too, where it runs on one thread
        return "kernels loop" if opts.kernels else "parallel loop"
    if where.inside_loop is not None:
        return None
    if where.compute is not None:
        words = set(where.compute.name.split())
        if "teams" in words:
            return "distribute parallel for"
        if "target" in words:
            return "parallel for"
        return "for"
    if opts.target is Target.GPU:
        return "target teams distribute parallel for"
    return "parallel for"


def _build(
    facts: LoopFacts,
    analysis: FileAnalysis,
    opts: SuggestOptions,
    where: Placement,
    inner: bool,
    parent_level: str | None = None,
) -> tuple[Suggestion, list[Loop], str | None]:
    """The suggestion for one parallel loop, the loops left below it, its level."""
    loop = facts.loop
    directive = (
        "loop" if inner and opts.dialect is Dialect.OPENACC else _directive(opts, where)
    )
    if directive is None:
        why = where.inside_loop or where.compute
        text = why.text if why is not None else "an enclosing construct"
        return _refuse(facts, opts, [f"already inside `{text}`"], inner=inner), [], None
    acc = opts.dialect is Dialect.OPENACC
    if acc and loop.cond_op == "!=":
        test = "OpenACC needs a `<`, `<=`, `>` or `>=` loop test; compilers reject `!=`"
        return _refuse(facts, opts, [test], inner=inner), [], None
    chain = [loop] if inner else collapse_chain(loop, analysis)
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
        )
    vector_below = (
        _first_parallel(below, analysis) if opts.dialect is Dialect.OPENACC else []
    )
    level: str | None = None
    if opts.dialect is Dialect.OPENACC:
        taken = parent_level if inner else _deepest(where.loop_levels)
        level = _acc_level(taken, inner or bool(where.loop_levels), bool(vector_below))
        if level:
            clauses.append(Clause(level))
        if level in (None, "vector"):
            vector_below = []
    scalar, scalar_reasons, blocker = scalar_clauses(facts, opts, covered)
    if blocker:
        return _refuse(facts, opts, [blocker], inner=inner), below, None
    clauses.extend(scalar)
    reasons.extend(scalar_reasons)
    cpu = opts.dialect is Dialect.OPENMP and opts.target is Target.CPU
    if cpu and imbalanced(loop) and (where.compute is None or directive == "for"):
        clauses.append(Clause("schedule", "dynamic"))
        reasons.append(
            "schedule(dynamic): inner trip counts depend on the outer "
            "loop variable (a triangular iteration space)"
        )
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
    atomics = _atomics(facts, opts.dialect, analysis.source.data)
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
        ),
        vector_below if opts.dialect is Dialect.OPENACC else [],
        level,
    )


def _below_collapse(loop: Loop, pragmas: list[Directive]) -> list[Loop]:
    """The loops under an existing pragma that its `collapse(n)` does not cover."""
    depth = 1
    for pragma in pragmas:
        clause = pragma.clause("collapse")
        if clause is not None and clause.args:
            digits = "".join(ch for ch in clause.args if ch.isdigit())
            depth = max(depth, int(digits) if digits else 1)
    level = [loop]
    for _ in range(depth - 1):
        level = [child for outer in level for child in outer.children]
    return [child for outer in level for child in outer.children]


def _first_parallel(loops: list[Loop], analysis: FileAnalysis) -> list[Loop]:
    """The outermost parallel loops among `loops` and the loops below them."""
    found: list[Loop] = []
    for loop in loops:
        if analysis.of(loop).parallel:
            found.append(loop)
        else:
            found.extend(_first_parallel(list(loop.children), analysis))
    return found


def _deepest(levels: tuple[str, ...]) -> str | None:
    order = ("gang", "worker", "vector")
    found = [lv for lv in order if lv in levels]
    return found[-1] if found else None


def _acc_level(taken: str | None, nested: bool, more_below: bool) -> str | None:
    """The level (gang > worker > vector) for a loop under level `taken`."""
    if not nested:
        return "gang" if more_below else None
    if taken in (None, "gang"):
        return "worker" if more_below else "vector"
    if taken == "worker":
        return "vector"
    return None


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
        for child in _below_collapse(loop, own):
            _suggest_loop(child, analysis, opts, out, root=False, ranges=inner_ranges)
        return
    nested = opts.dialect is Dialect.OPENMP or "vector" in where.loop_levels
    if where.inside_loop is not None and not forced_inner and nested:
        return
    if not facts.parallel:
        if not forced_inner:
            # Every loop that was a candidate says why it was refused; inner loops
            # of a parallelized loop simply stay sequential inside it.
            out.append(_refuse(facts, opts, [o.message for o in facts.obstacles]))
        for child in loop.children:
            _suggest_loop(child, analysis, opts, out, root=False, ranges=inner_ranges)
        return
    offload = opts.dialect is Dialect.OPENACC or opts.target is Target.GPU
    heap = (
        host_library_calls(
            loop, analysis.source, analysis.program, opts.dialect.sentinel
        )
        if offload
        else ()
    )
    if heap:
        if not forced_inner:
            out.append(_refuse(facts, opts, list(heap)))
        for child in loop.children:
            _suggest_loop(child, analysis, opts, out, root=False, ranges=inner_ranges)
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
            _suggest_loop(child, analysis, opts, out, root=False, ranges=inner_ranges)
        return
    suggestion, below, level = _build(
        facts, analysis, opts, where, inner=forced_inner, parent_level=parent_level
    )
    if suggestion.pragma is None and not root and not forced_inner:
        return
    out.append(suggestion)
    if suggestion.pragma is None:
        for child in loop.children:
            _suggest_loop(child, analysis, opts, out, root=False, ranges=inner_ranges)
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
        )


def _house_style(analysis: FileAnalysis, opts: SuggestOptions) -> SuggestOptions:
    """Follow the file's own habit: `kernels` if its compute constructs use it."""
    if opts.dialect is not Dialect.OPENACC or opts.kernels:
        return opts
    seen: dict[int, str] = {}
    for loop in analysis.source.loops():
        for directive in (*loop.pragmas, *(r.directive for r in loop.regions)):
            if directive.dialect == "acc" and directive.span is not None:
                seen[directive.span.start_byte] = directive.name
    words = [name.split()[0] for name in seen.values() if name]
    kernels = words.count("kernels")
    return replace(opts, kernels=True) if kernels > words.count("parallel") else opts


def _in_region(
    suggestion: Suggestion, region: DataRegion, analysis: FileAnalysis
) -> Suggestion:
    """The loop's suggestion rebuilt to find the region's arrays present."""
    where = placement(suggestion.loop, suggestion.options.dialect)
    inside = replace(where, present=(*where.present, *region.present))
    rebuilt, _, _ = _build(
        suggestion.facts, analysis, suggestion.options, inside, inner=False
    )
    if rebuilt.pragma is None:
        return suggestion
    return replace(rebuilt, region=region)


def reference_suggestion(
    analysis: FileAnalysis, loop: Loop, opts: SuggestOptions
) -> Suggestion:
    """What the analysis would write on `loop`, ignoring any pragma already on it."""
    opts = _house_style(analysis, opts)
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
    opts = _house_style(analysis, opts)
    out: list[Suggestion] = []
    for nest in analysis.source.nests:
        _suggest_loop(nest, analysis, opts, out, root=True)
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
            _in_region(s, region, analysis)
            if s.loop.id in members and not s.inner
            else s
            for s in out
        ]
    return tuple(out)
