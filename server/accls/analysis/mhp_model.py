"""The concurrency model of OpenMP `parallel` regions: who runs each access, and when.

A region is split into barrier phases; each access gets its phase, the worksharing
unit that runs it (every thread, one thread, a loop's iterations), the explicit
tasks around it, and the `critical` names and locks held.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace

from networkx.utils import UnionFind

from accls.analysis.mhp_constructs import (
    NEST_EXCLUDING,
    contains,
    first_word,
    followed_nest,
    loop_heads,
    pragma_at,
    reduction_combines,
    within,
)
from accls.analysis.mhp_env import (
    Environment,
    Location,
    callee_state,
    environment,
    locate,
)
from accls.analysis.mhp_guards import (
    Guard,
    copied_in_pointers,
    copied_pointer,
    guard_of,
)
from accls.analysis.mhp_locks import LockTable, lock_table, shared_locks
from accls.analysis.mhp_phases import barrier_phases
from accls.analysis.mhp_rows import region_extents
from accls.analysis.mhp_spinlocks import spin_locks
from accls.analysis.mhp_sync import (
    atomic_targets,
    fence_doubt,
    library_destinations,
    memory_order,
    region_doubt,
    sync_calls,
)
from accls.analysis.mhp_tasks import Task, depend_items, explicit_tasks, task_context
from accls.analysis.mhp_units import ORPHAN, Unit, unit_of
from accls.frontend import (
    AccessKind,
    Branch,
    Call,
    Directive,
    Function,
    Poly,
    Ref,
    Region,
    SourceFile,
    Span,
)

__all__ = ["ORPHAN", "Access", "RegionModel", "Task", "Unit", "region_models"]

_DROPPED = frozenset({"parallel", "target", "teams"})
_TEAMWORK = frozenset(
    {"for", "sections", "section", "single", "master", "masked", "barrier", "loop"}
)
_FOR_VAR = re.compile(r"for\s*\(\s*(?:[A-Za-z_][\w\s*]*?\s)?([A-Za-z_]\w*)\s*=")


@dataclass(frozen=True, slots=True, kw_only=True)
class Access:
    """One access to a shared location inside a region."""

    ref: Ref
    location: Location
    pos: int  # byte offset in program order (the call site for a callee's access)
    phase: int
    unit: Unit
    tasks: tuple[int, ...]  # enclosing explicit tasks, outermost first
    held: frozenset[str]  # "critical:NAME", "lock:L", "ordered"
    partial: frozenset[str]  # locks taken on some paths only
    atomic: bool
    doubt: str  # why the verdict may be wrong, "" when none
    guard: str  # a condition on the thread that decides whether it runs, or ""
    guards: tuple[Guard, ...] | None = ()  # the guard as isl rows; None if unread
    via: Call | None = None  # the call whose callee makes the access
    order: str = ""  # the memory order of its `atomic`: "seq_cst", "release", ...


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
    # (position, task context, depend items): waits for the tasks those items meet
    dep_waits: tuple[tuple[int, int, tuple[tuple[str, str], ...]], ...] = ()

    def task(self, tid: int) -> Task:
        """The task whose pragma starts at byte `tid`."""
        return next(t for t in self.tasks if t.id == tid)


def _is_region(region: Region) -> bool:
    words = region.directive.name.split()
    return bool(words) and words[0] == "parallel" and not {"for", "loop"} & set(words)


@dataclass(frozen=True, slots=True)
class _Scene:
    region: Region
    inner: list[Region]
    tasks: list[Task]
    bounds: list[int]
    phases: UnionFind[int]
    locks: LockTable
    env: Environment
    loops: list[Span]
    atomics: dict[int, frozenset[str]]
    branches: list[Branch]
    copied: frozenset[str] = frozenset()  # pointers copied in: one target for all


def _access(
    scene: _Scene, ref: Ref, pos: int, via: Call | None, combine: Region | None = None
) -> Access | None:
    chain = [c for c in scene.inner if contains(c, pos)]
    outer = [c for c in chain if c is not combine]
    shared_target = (
        ref.deref and not ref.subscripts and copied_pointer(scene.inner, ref.name, pos)
    )
    through = bool(ref.subscripts or ref.deref) and ref.name in scene.copied
    shared_target = shared_target and not through
    private = scene.env.is_private(ref.name, pos, outer) and not through
    if via is None and private and not shared_target:
        return None  # (a pointer copyprivate hands out points to one object)
    location = (
        locate(ref, pos, chain, scene.env, through)
        if via is None and not shared_target
        else Location(ref.name, "scalar", ())
        if via is not None
        else Location(ref.name, "const", ("0",), (Poly.const(0),))
    )
    if location is None:
        return None
    tasks = tuple(t.id for t in scene.tasks if t.id <= pos < t.span_end)
    anchor = tasks[0] if tasks else pos
    held: set[str] = set()
    atomic = False
    order = ""
    for construct in chain:
        first = first_word(construct)
        if first == "critical":
            clause = (
                construct.directive.clauses[0] if construct.directive.clauses else None
            )
            name = (clause.args or "") if clause and not clause.name else ""
            held.add(f"critical:{name.strip()}")
        elif first == "ordered":
            held.add("ordered")
        elif first == "atomic":
            atomic = ref.name in scene.atomics.get(pragma_at(construct), ())
            order = memory_order(construct) if atomic else ""
    locks, partial, doubt = scene.locks.held(pos, task_context(scene.tasks, pos))
    unit, guard_doubt, guards = _guarded(
        scene, pos, unit_of(scene.region, chain, scene.loops)
    )
    return Access(
        ref=ref,
        location=location,
        pos=pos,
        phase=scene.phases[bisect_right(scene.bounds, anchor)],
        unit=unit,
        tasks=tasks,
        held=frozenset(held | locks),
        partial=partial,
        atomic=atomic,
        doubt=doubt,
        guard=guard_doubt,
        guards=guards,
        via=via,
        order=order,
    )


def _pair(scene: _Scene) -> bool:
    """True when the region's team has exactly two threads: `num_threads(2)`."""
    clause = scene.region.directive.clause("num_threads")
    return clause is not None and (clause.args or "").strip() == "2"


def _guarded(
    scene: _Scene, pos: int, unit: Unit
) -> tuple[Unit, str, tuple[Guard, ...] | None]:
    """The unit once `if (tid == X)` arms count, and the thread-varying guards.

    The guards come as text and, when each tests the thread number, as isl rows.
    """
    doubt = ""
    guards: list[Guard] | None = []
    for branch in scene.branches:
        if not branch.span.start_byte <= pos < branch.span.end_byte:
            continue
        cond = " ".join(branch.condition.split())
        other = scene.env.thread_guard(cond) if branch.kind != "loop" else None
        if other is not None:
            if branch.kind == "if" and unit.kind == "team":
                unit = Unit(
                    "master",
                    branch.span.start_byte,
                    branch.span.line,
                    filter=other,
                    word=f"if {cond}",
                )
            elif branch.kind == "else" and unit.kind == "team" and _pair(scene):
                # In a team of two, "every thread but X" is one thread.
                unit = Unit(
                    "master",
                    branch.span.start_byte,
                    branch.span.line,
                    filter={"0": "1", "1": "0"}.get(other, f"!{other}"),
                    word=f"if !({cond})",
                )
            continue  # one thread (`if`), or every thread but one (`else`)
        names = scene.env.per_thread(cond)
        loop_var = _FOR_VAR.search(cond) if branch.kind == "loop" else None
        if loop_var is not None:
            names.discard(loop_var.group(1))
        env = scene.env
        dealt = names <= env.tid_vars | env.size_vars and any(
            c.body == branch.span.start_byte and c.stop > 1 for c in env.cyclic
        )
        if dealt or branch.span.start_byte in env.everywhere:
            continue  # `for (i = t; i < N; i += n)`, `while (k < 10)`: all run it
        if names and guards is not None:
            read = None
            if branch.kind != "loop":
                read = guard_of(cond, scene.env.tid_vars, branch.kind == "else")
            guards = None if read is None else [*guards, read]
        if names and not doubt:
            doubt = (
                f"`{sorted(names)[0]}` in `{cond}` (line {branch.span.line}) decides "
                "which threads run it, and how often"
            )
    return unit, doubt, None if guards is None else tuple(guards)


def _model(
    region: Region, fn: Function, source: SourceFile, orphan: bool = False
) -> RegionModel:
    inner = [c for c in source.constructs if within(c, region)]
    nested = [c for c in inner if followed_nest(c, inner, source.data)]
    dropped = [c for c in inner if first_word(c) in _DROPPED and c not in nested]
    inner = [c for c in inner if not any(within(c, d) for d in dropped)]
    inner = [c for c in inner if c not in dropped]
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
    barrier_calls, maybe_syncs = sync_calls(region, fn, source, tasks)
    bounds, phases, merged = barrier_phases(region, inner, source, barrier_calls)
    loops = [b.span for b in source.branches if b.kind == "loop"]
    env = environment(region, inner, fn, source, orphan)
    env = replace(env, extents=region_extents(fn, source, dict(env.constants)))
    spun = [(k.flag, k.acquired, k.released, k.line) for k in spins]
    scene = _Scene(
        region,
        inner,
        tasks,
        bounds,
        phases,
        shared_locks(lock_table(region, fn, source, tasks, spun), env, inner),
        env,
        loops,
        atomic_targets(inner, fn),
        [b for b in source.branches if contains(region, b.span.start_byte)],
        copied_in_pointers(region, fn, source),
    )
    accesses: list[Access] = []
    # A `static` local's initializer runs once, not on every thread.
    inits = {v.span.start_byte for v in fn.locals if v.static and v.span}
    copies = library_destinations(fn, region, source)
    for ref in fn.refs:
        pos = ref.span.start_byte
        if not contains(region, pos) or any(contains(d, pos) for d in dropped):
            continue
        ref = replace(ref, kind=AccessKind.WRITE) if pos in copies else ref
        if pos in inits or scene.locks.in_call(pos):
            continue
        made = _access(scene, ref, pos, None)
        if made is not None:
            accesses.append(made)
    for call, state, inside, through in callee_state(region, fn, source, env):
        at = call.span.start_byte
        if any(contains(d, at) for d in dropped):
            continue
        chain = [c for c in inner if contains(c, at)]
        if through and env.is_private(state.name, at, chain):
            continue  # the caller hands over its own copy
        made = _access(scene, state, at, call)
        if made is not None:
            accesses.append(replace(made, held=made.held | inside))
    for construct, ref in reduction_combines(inner, fn.refs):
        made = _access(scene, ref, construct.span.end_byte - 1, None, construct)
        if made is not None:
            accesses.append(made)
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
        accesses=tuple(accesses),
        tasks=tuple(tasks),
        waits=waits,
        dep_waits=dep_waits,
        groups=groups,
        merged=tuple(merged),
        maybe_syncs=tuple(maybe_syncs),
        doubt=doubt,
        env=env,
        fence_doubt=fence_doubt(
            [c for c in inner if not any(pragma_at(c) in k.parts for k in spins)]
        ),
        loops=tuple(b.span for b in scene.branches if b.kind == "loop"),
        heads=loop_heads(source.data, scene.branches),
        flushes=tuple(pragma_at(c) for c in inner if first_word(c) == "flush"),
        constructs=tuple(inner),
        branches=tuple(b.span for b in scene.branches),
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
