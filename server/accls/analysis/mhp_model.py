"""The concurrency model of OpenMP `parallel` regions: who runs each access, and when.

A region is split into barrier phases; each access gets its phase, the worksharing
unit that runs it (every thread, one thread, a loop's iterations), the explicit
tasks around it, and the `critical` names and locks held.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace

from accls.analysis.mhp_access import Access, Scene, region_access
from accls.analysis.mhp_arms import if_else_arms
from accls.analysis.mhp_callee_atomics import ATOMIC
from accls.analysis.mhp_callee_sweeps import callee_sweeps
from accls.analysis.mhp_callee_tasks import (
    Escape,
    escape_location,
    escape_tasks,
    escaping_calls,
)
from accls.analysis.mhp_callee_writes import callee_state
from accls.analysis.mhp_constructs import (
    NEST_EXCLUDING,
    binds_thread,
    contains,
    first_word,
    followed_nest,
    loop_heads,
    pragma_at,
    reduction_combines,
    within,
)
from accls.analysis.mhp_counting import counting_barriers
from accls.analysis.mhp_env import Environment, environment
from accls.analysis.mhp_guards import copied_in_pointers
from accls.analysis.mhp_library_ranges import range_accesses
from accls.analysis.mhp_locks import lock_table, shared_locks
from accls.analysis.mhp_orphan_pointers import orphan_pointer_params
from accls.analysis.mhp_phases import barrier_phases
from accls.analysis.mhp_pointer_reads import pointer_reads
from accls.analysis.mhp_rows import array_lengths, region_extents
from accls.analysis.mhp_separated_loops import unseparated_loops
from accls.analysis.mhp_spinlocks import spin_locks
from accls.analysis.mhp_struct_members import spread_members
from accls.analysis.mhp_sync import (
    atomic_targets,
    fence_doubt,
    library_destinations,
    region_doubt,
    sync_calls,
)
from accls.analysis.mhp_task_pointers import task_copied_pointers
from accls.analysis.mhp_tasks import Task, depend_items, explicit_tasks, task_context
from accls.analysis.mhp_units import ORPHAN, Unit
from accls.frontend import AccessKind, Directive, Function, Region, SourceFile, Span

__all__ = ["ORPHAN", "Access", "RegionModel", "Task", "Unit", "region_models"]

_DROPPED = frozenset({"parallel", "target", "teams"})
_TEAMWORK = frozenset(
    {"for", "sections", "section", "single", "master", "masked", "barrier", "loop"}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class RegionModel:
    """One parallel region: its accesses, tasks, and synchronisation points."""

    region: Region
    accesses: tuple[Access, ...]
    tasks: tuple[Task, ...]
    waits: tuple[tuple[int, int], ...]  # (position, task context) of taskwaits
    groups: tuple[tuple[int, int, int], ...]  # (start, end, task context)
    merged: tuple[tuple[int, Span, int], ...]  # (phase, loop body, barrier line)
    maybe_syncs: tuple[tuple[int, str, int], ...]  # calls that may hold a barrier
    doubt: str
    env: Environment  # what is private, and which names every thread sees alike
    fence_doubt: str = ""  # `flush` or ordered atomics: hand-made synchronisation
    loops: tuple[Span, ...] = ()  # loop bodies inside the region
    heads: tuple[tuple[int, int], ...] = ()  # their headers: conditions rerun
    flushes: tuple[int, ...] = ()  # where its `flush` constructs start
    constructs: tuple[Region, ...] = ()  # the constructs inside the region
    branches: tuple[Span, ...] = ()  # `if` arms and loop bodies inside the region
    arms: tuple[tuple[Span, Span], ...] = ()  # (then, else) of each `if ... else`
    # (position, task context, depend items): waits for the tasks those items meet
    dep_waits: tuple[tuple[int, int, tuple[tuple[str, str], ...]], ...] = ()
    combines: frozenset[int] = frozenset()  # where reductions' copies are combined

    def task(self, tid: int) -> Task:
        """The task whose pragma starts at byte `tid`."""
        return next(t for t in self.tasks if t.id == tid)


def _is_region(region: Region) -> bool:
    words = region.directive.name.split()
    return bool(words) and words[0] == "parallel" and not {"for", "loop"} & set(words)


def _model(
    region: Region, fn: Function, source: SourceFile, orphan: bool = False
) -> RegionModel:
    inner = [c for c in source.constructs if within(c, region)]
    nested = [c for c in inner if followed_nest(c, inner, source.data)]
    dropped = [c for c in inner if first_word(c) in _DROPPED and c not in nested]
    inner = [c for c in inner if not any(within(c, d) for d in dropped)]
    inner = [c for c in inner if c not in dropped and not binds_thread(c)]
    # Each thread runs a nested region whole: its worksharing does not split work
    # between the outer threads, and its barriers do not hold them.
    inner = [
        c
        for c in inner
        if c in nested
        or first_word(c) in NEST_EXCLUDING
        or not any(within(c, n) for n in nested)
    ]
    tasks = explicit_tasks(region, inner, source)
    spins = spin_locks(region, inner, source)
    env = environment(region, inner, fn, source, orphan)
    counting = counting_barriers(region, inner, source, env.size_vars)
    barrier_calls, maybe_syncs = sync_calls(region, fn, source, tasks)
    bounds, phases, merged = barrier_phases(
        region, inner, source, barrier_calls, tuple((k.bound, k.line) for k in counting)
    )
    loops = [b.span for b in source.branches if b.kind == "loop"]
    explained = [k.parts for k in spins] + [k.parts for k in counting]
    constants = dict(env.constants)
    env = replace(
        env,
        extents=region_extents(fn, source, constants),
        lengths=array_lengths(fn, source, constants),
    )
    spun = [(k.flag, k.acquired, k.released, k.line) for k in spins]
    escapes = escaping_calls(region, fn, source, env.threadprivate)
    placed: list[tuple[Escape, int]] = []
    for escape in escapes:
        at = escape.call.span.start_byte
        if any(contains(d, at) for d in dropped):
            continue
        made_tasks, pos = escape_tasks(escape, task_context(tasks, at))
        if {t.id for t in made_tasks} & {t.id for t in tasks}:
            continue  # `f(g())`: one byte for two calls' tasks, not followed
        tasks = sorted([*tasks, *made_tasks], key=lambda t: t.id)
        placed.append((escape, pos))
    scene = Scene(
        region,
        inner,
        tasks,
        bounds,
        phases,
        shared_locks(lock_table(region, fn, source, tasks, spun), env, inner),
        env,
        unseparated_loops(loops, bounds, source.branches, source),
        atomic_targets(inner, fn),
        [b for b in source.branches if contains(region, b.span.start_byte)],
        copied_in_pointers(region, fn, source)
        | task_copied_pointers(region, inner, fn, source)
        | (orphan_pointer_params(fn) if orphan else frozenset()),
    )
    accesses: list[Access] = []
    # A `static` local's initializer runs once, not on every thread.
    inits = {v.span.start_byte for v in fn.locals if v.static and v.span}
    copies = library_destinations(fn, region, source)
    for ref in [*fn.refs, *pointer_reads(fn, source)]:
        pos = ref.span.start_byte
        if not contains(region, pos) or any(contains(d, pos) for d in dropped):
            continue
        ref = replace(ref, kind=AccessKind.WRITE) if pos in copies else ref
        if pos in inits or scene.locks.in_call(pos):
            continue
        made = region_access(scene, ref, pos, None)
        if made is not None:
            accesses.append(made)
    accesses += range_accesses(scene, fn, source, dropped)  # `memset(a + e, 0, n)`
    for call, state, inside, through in callee_state(region, fn, source, env):
        at = call.span.start_byte
        if any(contains(d, at) for d in dropped):
            continue
        chain = [c for c in inner if contains(c, at)]
        if through and env.is_private(state.name, at, chain):
            continue  # the caller hands over its own copy
        made = region_access(scene, state, at, call)
        if made is not None:
            atomic = made.atomic or ATOMIC in inside
            held = made.held | (inside - {ATOMIC})
            accesses.append(replace(made, held=held, atomic=atomic))
    for call, ref, where in callee_sweeps(region, fn, source, env, tasks, inner):
        made = region_access(scene, ref, call.span.start_byte, call)
        if made is not None:
            accesses.append(replace(made, location=where))
    constants = dict(env.constants)
    for escape, pos in placed:
        chain = [c for c in inner if contains(c, escape.call.span.start_byte)]
        for ref in escape.writes:
            through = ref.span.start_byte in escape.through
            if through and env.is_private(ref.name, escape.call.span.start_byte, chain):
                continue  # the caller hands over its own array
            made = region_access(scene, ref, pos, escape.call)
            if made is not None:
                where = escape_location(ref, fn, source, constants)
                accesses.append(replace(made, location=where))
    combines: set[int] = set()
    for construct, ref in reduction_combines(inner, fn.refs):
        made = region_access(scene, ref, construct.span.end_byte - 1, None, construct)
        if made is not None:
            accesses.append(made)
            combines.add(made.pos)
    waits = tuple(
        (pragma_at(c), task_context(tasks, pragma_at(c)))
        for c in inner
        if first_word(c) == "taskwait" and not depend_items(c)
    )
    # `taskwait depend(..)` and an undeferred task with `depend` wait only for
    # the earlier sibling tasks whose dependences they meet.
    dep_waits = tuple(
        (pragma_at(c), task_context(tasks, pragma_at(c)), depend_items(c))
        for c in inner
        if first_word(c) == "taskwait" and depend_items(c)
    ) + tuple((t.id, t.parent, t.deps) for t in tasks if t.undeferred and t.deps)
    parents = {t.id: t.parent for t in tasks}
    groups = tuple(
        (pragma_at(c), c.span.end_byte, task_context(tasks, pragma_at(c)))
        for c in inner
        if first_word(c) == "taskgroup"
    ) + tuple(
        # A taskloop's implicit taskgroup belongs to the task that meets it.
        (pragma_at(c), c.span.end_byte, parents[pragma_at(c)])
        for c in inner
        if first_word(c) == "taskloop" and c.directive.clause("nogroup") is None
    )
    doubt = region_doubt(region, inner, fn, source)
    return RegionModel(
        region=region,
        accesses=tuple(spread_members(accesses)),
        tasks=tuple(tasks),
        waits=waits,
        dep_waits=dep_waits,
        groups=groups,
        merged=tuple(merged),
        maybe_syncs=tuple(maybe_syncs),
        doubt=doubt,
        env=env,
        fence_doubt=fence_doubt(
            [c for c in inner if not any(pragma_at(c) in k for k in explained)]
        ),
        loops=tuple(b.span for b in scene.branches if b.kind == "loop"),
        heads=loop_heads(source.data, scene.branches),
        flushes=tuple(pragma_at(c) for c in inner if first_word(c) == "flush"),
        constructs=tuple(inner),
        combines=frozenset(combines),
        branches=tuple(b.span for b in scene.branches),
        arms=if_else_arms(scene.branches, source),
    )


def region_models(source: SourceFile) -> tuple[RegionModel, ...]:
    """A model for each `parallel` region (not `parallel for`) of the file."""
    out: list[RegionModel] = []
    functions = sorted(source.functions, key=lambda f: f.span.start_byte)
    starts = [f.span.start_byte for f in functions]
    for region in source.constructs:
        if not _is_region(region):
            continue
        at = bisect_right(starts, region.span.start_byte) - 1
        if at >= 0 and region.span.start_byte < functions[at].span.end_byte:
            out.append(_model(region, functions[at], source))
    parallel = [r for r in source.constructs if first_word(r) == "parallel"]
    words: dict[int, set[str]] = {}
    tasks: dict[int, bool] = {}
    for r in source.constructs:
        at = bisect_right(starts, r.span.start_byte) - 1
        if at < 0 or r.span.start_byte >= functions[at].span.end_byte:
            continue
        word = first_word(r)
        words.setdefault(at, set()).add(word)
        if word in ("task", "taskloop") and not any(
            contains(p, r.span.start_byte) for p in parallel
        ):
            tasks[at] = True
    for at, fn in enumerate(functions):
        # Orphaned worksharing would need the caller's team: left alone.
        if tasks.get(at) and not words.get(at, set()) & _TEAMWORK:
            orphan = Directive(dialect="omp", name=f"{ORPHAN} of {fn.name}")
            out.append(_model(Region(directive=orphan, span=fn.span), fn, source, True))
    return tuple(out)
