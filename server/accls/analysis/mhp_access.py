"""One access in a parallel region: where it lands, its phase, unit and locks held."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from networkx.utils import UnionFind

from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.mhp_env import Environment, Location, locate
from accls.analysis.mhp_guards import Guard, copied_pointer, guard_of
from accls.analysis.mhp_locks import LockTable
from accls.analysis.mhp_orphan_pointers import member_through_copy
from accls.analysis.mhp_sync import memory_order
from accls.analysis.mhp_tasks import Task, task_context
from accls.analysis.mhp_units import Unit, unit_of
from accls.frontend import Branch, Call, Poly, Ref, Region, Span

__all__ = ["Access", "Scene", "region_access"]


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


@dataclass(frozen=True, slots=True)
class Scene:
    """What the accesses of one region are placed against."""

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


def region_access(
    scene: Scene, ref: Ref, pos: int, via: Call | None, combine: Region | None = None
) -> Access | None:
    """The access `ref` makes at `pos`, or None when it touches no shared location."""
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
        Location(ref.name, "scalar", ())
        if via is None and member_through_copy(ref, scene.copied)
        else locate(ref, pos, chain, scene.env, through)
        if via is None and not shared_target
        else _callee_location(ref)
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


def _callee_location(ref: Ref) -> Location:
    """A callee's write: its variable, or the element its constant subscripts name."""
    polys = tuple(s.poly for s in ref.subscripts)
    if not polys or any(p is None or not p.is_constant for p in polys):
        return Location(ref.name, "scalar", ())
    return Location(ref.name, "const", tuple(s.text for s in ref.subscripts), polys)


def _pair(scene: Scene) -> bool:
    """True when the region's team has exactly two threads: `num_threads(2)`."""
    clause = scene.region.directive.clause("num_threads")
    return clause is not None and (clause.args or "").strip() == "2"


def _guarded(
    scene: Scene, pos: int, unit: Unit
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
        # `for (int u = 0; u < nt; u++)`: every thread runs every value
        dealt = dealt or any(
            w.body == branch.span.start_byte and w.first == 0 for w in env.team_loops
        )
        # `for (i = lo; i < hi; i++)` over each thread's block, none empty
        dealt = dealt or any(
            b.body == branch.span.start_byte and b.full for b in env.blocked
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
