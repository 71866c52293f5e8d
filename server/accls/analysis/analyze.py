"""The analysis entry point: a SourceFile in, facts for every loop out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from accls.analysis.address_reads import read_only_addresses
from accls.analysis.array_params import array_param_facts
from accls.analysis.array_reductions import array_reductions
from accls.analysis.bool_reductions import bool_reductions
from accls.analysis.budget import Budget, TooLarge
from accls.analysis.callee_inline_probe import inline_probe
from accls.analysis.class_privates import class_privates
from accls.analysis.converted_sums import converted_sums
from accls.analysis.dependence_obstacle import dependence_obstacle, substitutions
from accls.analysis.element_arguments import promote_element_arguments
from accls.analysis.element_members import member_dependences
from accls.analysis.empty_loops import keep_first_values
from accls.analysis.extents import escape_reason, extent_escapes
from accls.analysis.global_links import with_own_links
from accls.analysis.graph import DependenceGraph
from accls.analysis.guarded_arrays import guarded_arrays
from accls.analysis.header_functions import with_headers
from accls.analysis.lone_program import program_field_sets
from accls.analysis.loop_common import LoopCommon, loop_common
from accls.analysis.model import Dependence, LoopFacts, Obstacle, ObstacleCode
from accls.analysis.nan_minmax import nan_minmax
from accls.analysis.narrow_sums import exact_atomics, narrow_sums, reassociation
from accls.analysis.nest_views import integer_macros, nest_views
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.out_params import out_param_writes
from accls.analysis.own_minmax import own_minmax
from accls.analysis.pinned_writes import pinned_scalars
from accls.analysis.pointer_copies import stable_names
from accls.analysis.pointer_locals import promote_pointer_locals
from accls.analysis.pointer_outer_locals import promote_outer_pointers
from accls.analysis.pointer_tables import promote_table_entries
from accls.analysis.private_copies import private_copies
from accls.analysis.program import ProgramSummaries
from accls.analysis.range_arguments import range_probe
from accls.analysis.row_arguments import promote_row_arguments
from accls.analysis.rows_before import nest_sources
from accls.analysis.scalars import classify_scalars, is_scalar_ref
from accls.analysis.shift_atomics import shift_atomics
from accls.analysis.symbol_facts import Fact, function_facts, nest_facts
from accls.analysis.xor_partners import xor_pair_arrays
from accls.frontend import (
    HeaderContext,
    Loop,
    Ref,
    SourceFile,
    parse_source,
)

__all__ = [
    "AnalysisOptions",
    "FileAnalysis",
    "analyze",
    "analyze_dialects",
    "analyze_text",
]


@dataclass(frozen=True, slots=True)
class AnalysisOptions:
    """Assumptions the user may grant the analysis."""

    assume_no_alias: bool = False  # pointer arguments never overlap
    dialect: str = ""  # "acc" or "omp": whose atomic/critical constructs protect
    budget: Budget = field(default_factory=Budget)  # work one loop nest may cost
    # The summaries of the functions the other files of the program define.
    program: ProgramSummaries | None = None
    reassociate_float: bool = False  # `float` totals may be reduced in any order


@dataclass(frozen=True, slots=True, kw_only=True)
class FileAnalysis:
    """Facts for every loop of one file, in source order."""

    source: SourceFile
    facts: tuple[LoopFacts, ...]
    program: ProgramSummaries | None = None  # the other files' summaries it used
    _index: dict[int, LoopFacts] = field(default_factory=dict, compare=False)
    # A per-file cache for the layers above (array sections per loop, ...).
    memo: dict[object, object] = field(default_factory=dict, compare=False)
    # Its part that no dialect changes, shared by the file's analyses for each.
    shared: dict[object, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self._index.update({f.loop.id: f for f in self.facts})

    def of(self, loop: Loop) -> LoopFacts:
        """The facts of one loop."""
        return self._index[loop.id]


def _atomic_arrays(loop: Loop, carried: tuple[Dependence, ...]) -> dict[str, list[Ref]]:
    """Arrays whose only accesses are reduction-style updates (histograms)."""
    refs: dict[str, list[Ref]] = {}
    for ref in loop.refs:
        if not is_scalar_ref(ref):
            refs.setdefault(ref.name, []).append(ref)
    hit = {dep.array for dep in carried}
    return {
        name: group
        for name, group in refs.items()
        if name in hit
        and all(r.kind.value == "update" and r.reduction is not None for r in group)
        and all(any(s.poly is None for s in r.subscripts) for r in group)
    }


def _loop_facts(
    loop: Loop,
    graph: DependenceGraph,
    source: SourceFile,
    options: AnalysisOptions,
    common: LoopCommon,
) -> LoopFacts:
    fn = source.function(loop.function)
    scalars, scalar_obstacles, inductions = classify_scalars(
        loop, fn, source.globals, options.dialect
    )
    scalars, scalar_obstacles = class_privates(
        loop, fn, source, scalars, scalar_obstacles
    )
    scalars, scalar_obstacles = bool_reductions(
        scalars, scalar_obstacles, loop, fn, source
    )
    scalars, scalar_obstacles = nan_minmax(scalars, scalar_obstacles, loop, fn, source)
    scalars, scalar_obstacles = own_minmax(scalars, scalar_obstacles, loop, source)
    scalars, scalar_obstacles = converted_sums(
        scalars, scalar_obstacles, loop, fn, source
    )
    reorder = reassociation(options.reassociate_float, source)
    rounding, reordered = narrow_sums(scalars, loop, fn, source, reorder)
    scalar_obstacles = (*scalar_obstacles, *rounding)
    scalar_obstacles, pinned = pinned_scalars(loop, source, scalar_obstacles)
    scalars, empty = keep_first_values((*scalars, *pinned), loop, source)
    owned = common.owned
    carried = tuple(d for d in graph.carried_by(loop.id) if d.array not in owned)
    guarded = guarded_arrays(loop, options.dialect, fn, source)
    guarded |= xor_pair_arrays(loop, fn, source)
    atomic = {
        name: refs
        for name, refs in _atomic_arrays(loop, carried).items()
        if name not in guarded
    }
    atomic.update(shift_atomics(loop, {d.array for d in carried}, fn, source))
    atomic = exact_atomics(atomic, loop, fn, source, bool(reorder))
    by_span = {ref.span: ref for ref in loop.refs}
    obstacles: list[Obstacle] = [
        *common.first,
        *scalar_obstacles,
        *empty,
        *common.shared,
    ]
    for escape in common.escapes:
        obstacles.append(
            Obstacle(
                code=ObstacleCode.EXTENT,
                line=escape.ref.span.line,
                variable=escape.ref.name,
                message=escape_reason(escape),
            )
        )
    skip = atomic.keys() | guarded
    macros = integer_macros(source.macros)
    names = {d.array for d in carried} - skip
    sums = array_reductions(
        loop, fn, source, names, options.dialect, macros, narrow=bool(reorder)
    )
    skip |= {s.name for s in sums}
    scratch = private_copies(loop, source, carried, skip)
    seen: set[tuple[str, int]] = set()
    for dep in carried:
        if dep.array in skip or dep.array in scratch:
            continue
        if (dep.array, dep.source.line) in seen:
            continue
        seen.add((dep.array, dep.source.line))
        obstacles.append(dependence_obstacle(dep, by_span, loop, macros))
    assumptions: list[str] = list(reordered)
    aliasing = common.aliasing
    assumptions.extend(aliasing.proofs)
    for obstacle in aliasing.obstacles:
        if options.assume_no_alias and obstacle.assumption:
            assumptions.append(
                f"assumes `{obstacle.variable}` overlaps no other array "
                "(assume-no-alias)"
            )
        else:
            obstacles.append(obstacle)
    stated, shared = array_param_facts(
        loop, fn, source, options.program, options.assume_no_alias
    )
    assumptions.extend(stated)
    obstacles.extend(shared)
    if loop.step_symbol:
        assumptions.append(
            f"`{loop.var}` advances by `{loop.step_symbol}`, which the loop never "
            "changes: assumed positive, as OpenMP and OpenACC require of a `<` loop"
        )
    named = {(o.code, o.variable) for o in obstacles}
    obstacles.extend(o for o in common.advances if (o.code, o.variable) not in named)
    obstacles.sort(key=lambda o: (o.line, o.code))
    return LoopFacts(
        loop=loop,
        parallel=not obstacles,
        obstacles=tuple(obstacles),
        scalars=scalars,
        dependences=carried,
        assumptions=tuple(assumptions),
        pure_calls=common.pure_calls,
        atomics=tuple(r for group in atomic.values() for r in group),
        escapes=common.escapes,
        inductions=inductions,
        call_effects=common.call_effects,
        substitutions=(*_bound_notes(loop), *substitutions(loop.refs)),
        private_arrays=tuple(sorted(n for n, count in scratch.items() if not count)),
        private_blocks=tuple(sorted((n, c) for n, c in scratch.items() if c)),
        array_reductions=sums,
    )


def _with_symbol_facts(facts: LoopFacts, fixed: tuple[Fact, ...]) -> LoopFacts:
    """Name the facts of fixed scalars a parallel loop reads (`ss` is 4*r + 1)."""
    if not facts.parallel or not fixed:
        return facts
    # Rows of a linearized subscript (`row*ss + k`) are what the facts prove.
    names = {
        name
        for ref in facts.loop.refs
        for sub in ref.subscripts
        if sub.poly is not None
        for mono, _ in sub.poly.terms
        if len(mono) > 1
        for name in mono
    }
    notes: list[str] = []
    for _ in fixed:  # facts linked to those through others (`ss`, then `r`)
        for fact in fixed:
            if fact.note not in notes and fact.poly.names() & names:
                notes.append(fact.note)
                names |= fact.poly.names()
    if not notes:
        return facts
    shown = "; ".join(dict.fromkeys(notes))
    return replace(facts, call_effects=(*facts.call_effects, f"holds here: {shown}"))


def _bound_notes(loop: Loop) -> tuple[str, ...]:
    """The forward-substituted values in the bounds of `loop` and the loops inside."""
    notes = list(loop.substituted)
    for child in loop.children:
        notes.extend(_bound_notes(child))
    return tuple(dict.fromkeys(notes))


def _failed(loop: Loop, exc: Exception) -> LoopFacts:
    obstacle = Obstacle(
        code=ObstacleCode.INTERNAL,
        line=loop.line,
        message=f"the dependence analysis failed on this loop nest "
        f"({type(exc).__name__}); please report it",
    )
    return LoopFacts(
        loop=loop, parallel=False, obstacles=(obstacle,), scalars=(), dependences=()
    )


def _too_large(loop: Loop, exc: TooLarge) -> LoopFacts:
    obstacle = Obstacle(
        code=ObstacleCode.TOO_LARGE,
        line=loop.line,
        message=f"the loop nest at line {loop.line} is too large to analyse here "
        f"({exc}); split it into smaller loops",
    )
    return LoopFacts(
        loop=loop, parallel=False, obstacles=(obstacle,), scalars=(), dependences=()
    )


def analyze(source: SourceFile, options: AnalysisOptions | None = None) -> FileAnalysis:
    """Facts for every loop in the file."""
    opts = options or AnalysisOptions()
    return analyze_dialects(source, opts, (opts.dialect,))[0]


def analyze_dialects(
    source: SourceFile, options: AnalysisOptions, dialects: Sequence[str]
) -> tuple[FileAnalysis, ...]:
    """`analyze` for each of `dialects` (`options.dialect` ignored), in that order.

    Only the scalars and the constructs that protect depend on the dialect: the
    dependences of each nest are computed once for all of them.
    """
    program = with_headers(source, options.program, PURE_FUNCTIONS)
    opts = replace(options, program=with_own_links(program, source))
    facts: dict[str, list[LoopFacts]] = {d: [] for d in dialects}
    fields = program_field_sets(source, opts.program)
    if fields is not None and opts.program is not None:
        opts = replace(opts, program=replace(opts.program, fields=fields))
    constants = integer_macros(source.macros)
    stable_by_fn: dict[str | None, frozenset[str]] = {}
    facts_by_fn: dict[str | None, tuple[Fact, ...]] = {}
    for nest, seen in nest_sources(source):
        try:
            # A row a callee writes (`zero(f[i])`) is an access like any other.
            nest = promote_row_arguments(nest, seen, PURE_FUNCTIONS, opts.program)
            # An element a callee updates at one index (`randn(seed, x)`) too.
            nest = promote_element_arguments(nest, seen)
            nest = promote_pointer_locals(nest, seen)  # `s = a[i % 4]; s[k]`
            nest = promote_outer_pointers(nest, seen)  # `t = s[0];` before it
            nest = promote_table_entries(nest, seen)  # `*t[2] = {a, b}`: t[1][k]
            nest = read_only_addresses(
                out_param_writes(nest, seen),
                seen.function(nest.function),
                seen.globals,
                seen.types,
                seen,
                PURE_FUNCTIONS,
            )
            if nest.function not in stable_by_fn:  # once per function, not per nest
                stable_by_fn[nest.function] = stable_names(seen.function(nest.function))
            stable = stable_by_fn[nest.function]
            if nest.function not in facts_by_fn:
                fn = seen.function(nest.function)
                facts_by_fn[nest.function] = function_facts(fn, seen, constants)
            fixed = nest_facts(facts_by_fn[nest.function], nest)
            forms = tuple((f.poly, f.equal) for f in fixed)
            views = nest_views(nest, constants, stable, forms, seen)
            # Loop-independent dependences decide nothing here: only carried ones.
            probe = range_probe(nest, seen, opts.program)  # calls' ranges, as loops
            probe = inline_probe(probe, seen, PURE_FUNCTIONS)  # callees' accesses
            known = (constants, stable, forms)  # what `views` were built with
            deps = member_dependences(nest, probe, views, opts.budget, seen, known)
            graph = DependenceGraph(deps)
            escapes = extent_escapes(nest, seen, views)
        except TooLarge as exc:
            refused = [_too_large(loop, exc) for loop in nest.walk()]
            for found in facts.values():
                found.extend(refused)
            continue
        except Exception as exc:  # a bug must cost a refusal, never a wrong pragma
            refused = [_failed(loop, exc) for loop in nest.walk()]
            for found in facts.values():
                found.extend(refused)
            continue
        for loop in nest.walk():
            common = loop_common(loop, seen, opts.program, escapes, fields)
            for dialect, found in facts.items():
                mine = replace(opts, dialect=dialect)
                found.append(
                    _with_symbol_facts(
                        _loop_facts(loop, graph, seen, mine, common), fixed
                    )
                )
    shared: dict[object, object] = {}
    return tuple(
        FileAnalysis(
            source=source, facts=tuple(facts[d]), program=opts.program, shared=shared
        )
        for d in dialects
    )


def analyze_text(
    text: str,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    options: AnalysisOptions | None = None,
    context: HeaderContext | None = None,
) -> FileAnalysis:
    """Parse and analyse C text in one call."""
    return analyze(parse_source(text, path, include_dirs, context=context), options)
