"""The concurrency model of OpenMP `parallel` regions: who runs each access, and when.

A region is split into barrier phases; each access gets its phase, the worksharing
unit that runs it (every thread, one thread, a loop's iterations), the explicit
tasks around it, and the `critical` names and locks held.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from networkx.utils import UnionFind

from accls.analysis.mhp_env import (
    Environment,
    Location,
    callee_state,
    environment,
    locate,
)
from accls.analysis.mhp_locks import LockTable, lock_table
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.frontend import (
    AccessKind,
    Branch,
    Call,
    Function,
    Ref,
    Region,
    SourceFile,
    Span,
)

__all__ = ["Access", "RegionModel", "Task", "Unit", "region_models"]

_WORKSHARING = frozenset({"for", "sections", "single", "loop"})
_DROPPED = frozenset({"parallel", "target", "teams"})
_FOR_VAR = re.compile(r"for\s*\(\s*(?:[A-Za-z_][\w\s*]*?\s)?([A-Za-z_]\w*)\s*=")
_NO_SYNC = frozenset(
    "printf fprintf sprintf snprintf puts putchar fputs fflush fopen fclose fread "
    "fwrite malloc calloc realloc free memcpy memset memmove exit abort rand srand "
    "time clock gettimeofday assert perror".split()
)
"""Library calls that never hold a barrier."""
_MEMORY_ORDER = frozenset({"seq_cst", "acquire", "release", "acq_rel"})


@dataclass(frozen=True, slots=True)
class Unit:
    """Who runs a stretch of code: `team` (every thread), one thread, a loop."""

    kind: str  # "team", "single", "master", "section", "loop", "serial"
    id: int  # start byte of the construct, 0 for the team
    line: int = 0
    repeated: bool = False  # a nowait construct inside a loop of the region
    filter: str = "0"  # the thread a `masked` construct runs on
    nowait: bool = False
    word: str = ""  # the directive as written: `master`, `masked`, `sections`


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """An explicit task (or taskloop) construct of a region."""

    id: int  # start byte of the pragma
    line: int
    parent: int  # the enclosing task's id, -1 for the implicit task
    multi: str  # why several instances may run at once, "" if one
    deps: tuple[tuple[str, str], ...]  # (type, list item) of `depend` clauses
    undeferred: bool  # `if(0)`: the creator waits for it
    span_end: int
    taskloop: bool = False


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
    via: Call | None = None  # the call whose callee makes the access


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

    def task(self, tid: int) -> Task:
        """The task whose pragma starts at byte `tid`."""
        return next(t for t in self.tasks if t.id == tid)


def _first(region: Region) -> str:
    name = region.directive.name
    return name.split()[0] if name else ""


def _within(inner: Region, outer: Region) -> bool:
    outer_at = outer.directive.span.start_byte if outer.directive.span else 0
    inner_at = inner.directive.span.start_byte if inner.directive.span else 0
    return (
        inner_at > outer_at
        and outer.span.start_byte <= inner.span.start_byte
        and inner.span.end_byte <= outer.span.end_byte
    )


def _at(region: Region) -> int:
    return region.directive.span.start_byte if region.directive.span else 0


def _contains(region: Region, pos: int) -> bool:
    return region.span.start_byte <= pos < region.span.end_byte


def _is_region(region: Region) -> bool:
    words = region.directive.name.split()
    return bool(words) and words[0] == "parallel" and not {"for", "loop"} & set(words)


def _unit_of(region: Region, chain: list[Region], loops: list[int]) -> Unit:
    """The innermost worksharing construct of the implicit task around an access."""
    unit = Unit("team", 0)
    words = set(region.directive.name.split())
    if words & {"master", "masked"}:
        unit = Unit("master", _at(region), region.span.line)
    elif "single" in words:
        unit = Unit("single", _at(region), region.span.line)
    for construct in chain:
        first = _first(construct)
        if first in ("task", "taskloop"):
            break
        nowait = construct.directive.clause("nowait") is not None
        repeated = nowait and any(_at(region) < lp < _at(construct) for lp in loops)
        line = construct.directive.span.line if construct.directive.span else 0
        if first in ("for", "loop"):
            unit = Unit("loop", _at(construct), line, nowait=nowait)
        elif first == "single":
            unit = Unit("single", _at(construct), line, repeated, nowait=nowait)
        elif first in ("master", "masked"):
            clause = construct.directive.clause("filter")
            which = (clause.args or "0").strip() if clause else "0"
            unit = Unit("master", _at(construct), line, filter=which, word=first)
        elif first in ("section", "sections"):
            unit = Unit("section", _at(construct), line, nowait=nowait)
    return unit


def _phases(
    region: Region, inner: list[Region], source: SourceFile, calls: list[Call]
) -> tuple[list[int], UnionFind[int], list[tuple[int, Span, int]]]:
    tasks = [c for c in inner if _first(c) in ("task", "taskloop")]
    bounds: list[int] = [c.span.start_byte for c in calls]
    lines: dict[int, int] = {c.span.start_byte: c.span.line for c in calls}
    for c in inner:
        if any(_within(c, t) for t in tasks):
            continue
        first = _first(c)
        if first == "barrier":
            bounds.append(_at(c))
            lines[_at(c)] = c.span.line
        elif first in _WORKSHARING and c.directive.clause("nowait") is None:
            bounds.append(c.span.end_byte)
            lines[c.span.end_byte] = c.span.end[0] + 1
    bounds.sort()
    phases: UnionFind[int] = UnionFind(range(len(bounds) + 1))
    wrapped: list[tuple[int, Span, int]] = []
    for branch in source.branches:
        span = branch.span
        if branch.kind != "loop" or not _contains(region, span.start_byte):
            continue
        inside = [b for b in bounds if span.start_byte <= b < span.end_byte]
        if inside and not any(_contains(t, span.start_byte) for t in tasks):
            # The code after the loop body's last barrier runs alongside the code
            # before its first barrier in the next iteration: one phase.
            lo = bisect_right(bounds, span.start_byte)
            hi = bisect_right(bounds, span.end_byte - 1)
            phases.union(lo, hi)
            wrapped.append((lo, span, lines[inside[-1]]))
    merged = [(phases[lo], loop, barrier) for lo, loop, barrier in wrapped]
    return bounds, phases, merged


def _deps(region: Region) -> tuple[tuple[str, str], ...]:
    out: list[tuple[str, str]] = []
    for clause in region.directive.clauses:
        if clause.name != "depend" or not clause.args or ":" not in clause.args:
            continue
        kind, items = clause.args.split(":", 1)
        kind = kind.split(",")[-1].strip()
        depth, item = 0, ""
        for char in items + ",":
            depth += char in "(["
            depth -= char in ")]"
            if char == "," and depth == 0:
                out.append((kind, "".join(item.split())))
                item = ""
            else:
                item += char
    return tuple(out)


def _tasks(region: Region, inner: list[Region], source: SourceFile) -> list[Task]:
    found = [c for c in inner if _first(c) in ("task", "taskloop")]
    loops = [b.span for b in source.branches if b.kind == "loop"]
    out: list[Task] = []
    for construct in found:
        parents = [t for t in out if _contains(_region_of(found, t), _at(construct))]
        parent = parents[-1] if parents else None
        scope_start = parent.id if parent else region.span.start_byte
        multi = ""
        if _first(construct) == "taskloop":
            multi = "a `taskloop` runs its iterations as tasks at once"
        elif parent is not None and parent.multi:
            multi = parent.multi
        elif any(
            scope_start < s.start_byte <= _at(construct) < s.end_byte for s in loops
        ):
            multi = "it is created in a loop, once per iteration"
            if _serialized(construct, inner, loops):
                multi = ""
        else:
            words = [w for w in construct.directive.name.split()]
            chain = [
                c for c in inner if _contains(c, _at(construct)) and c not in found
            ]
            unit = _unit_of(region, chain, [])
            if parent is None and unit.kind in ("team", "loop") and words:
                multi = "every thread creates one"
        cond = construct.directive.clause("if")
        flag = (cond.args or "").split(":")[-1].strip() if cond else ""
        out.append(
            Task(
                id=_at(construct),
                line=construct.directive.span.line if construct.directive.span else 0,
                parent=parent.id if parent else -1,
                multi=multi,
                deps=_deps(construct),
                undeferred=flag in ("0", "false"),
                span_end=construct.span.end_byte,
                taskloop=_first(construct) == "taskloop",
            )
        )
    return out


def _serialized(construct: Region, inner: list[Region], loops: list[Span]) -> bool:
    """True if the instances a loop creates run one at a time."""
    at = _at(construct)
    cond = construct.directive.clause("if")
    if cond is not None and (cond.args or "").split(":")[-1].strip() in ("0", "false"):
        return True
    if any(
        k in ("out", "inout") and item.isidentifier() for k, item in _deps(construct)
    ):
        return True
    body = min(
        (s for s in loops if s.start_byte <= at < s.end_byte),
        key=lambda s: s.end_byte - s.start_byte,
    )
    return any(_first(c) == "taskwait" and at < _at(c) < body.end_byte for c in inner)


def _region_of(found: list[Region], task: Task) -> Region:
    return next(c for c in found if _at(c) == task.id)


def _context(tasks: list[Task], pos: int) -> int:
    """The innermost task (id) whose construct contains `pos`, -1 for none."""
    inside = [t.id for t in tasks if t.id <= pos < t.span_end]
    return inside[-1] if inside else -1


@dataclass(frozen=True, slots=True)
class _Scene:
    region: Region
    inner: list[Region]
    tasks: list[Task]
    bounds: list[int]
    phases: UnionFind[int]
    locks: LockTable
    env: Environment
    loops: list[int]
    atomics: dict[int, frozenset[str]]
    branches: list[Branch]


def _access(scene: _Scene, ref: Ref, pos: int, via: Call | None) -> Access | None:
    chain = [c for c in scene.inner if _contains(c, pos)]
    if via is None and scene.env.is_private(ref.name, pos, chain):
        return None
    location = (
        locate(ref, pos, chain, scene.env)
        if via is None
        else Location(ref.name, "scalar", ())
    )
    if location is None:
        return None
    tasks = tuple(t.id for t in scene.tasks if t.id <= pos < t.span_end)
    anchor = tasks[0] if tasks else pos
    held: set[str] = set()
    atomic = False
    for construct in chain:
        first = _first(construct)
        if first == "critical":
            clause = (
                construct.directive.clauses[0] if construct.directive.clauses else None
            )
            name = (clause.args or "") if clause and not clause.name else ""
            held.add(f"critical:{name.strip()}")
        elif first == "ordered":
            held.add("ordered")
        elif first == "atomic":
            atomic = ref.name in scene.atomics.get(_at(construct), ())
    locks, partial, doubt = scene.locks.held(pos, _context(scene.tasks, pos))
    unit, guard_doubt = _guarded(scene, pos, _unit_of(scene.region, chain, scene.loops))
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
        via=via,
    )


def _guarded(scene: _Scene, pos: int, unit: Unit) -> tuple[Unit, str]:
    """The unit once `if (tid == X)` arms are counted, and any thread-varying guard."""
    doubt = ""
    for branch in scene.branches:
        if not branch.span.start_byte <= pos < branch.span.end_byte:
            continue
        cond = " ".join(branch.condition.split())
        if branch.kind == "if":
            other = scene.env.thread_guard(cond)
            if other is not None:
                if unit.kind == "team":
                    unit = Unit(
                        "master",
                        branch.span.start_byte,
                        branch.span.line,
                        filter=other,
                        word=f"if {cond}",
                    )
                continue
        names = scene.env.per_thread(cond)
        loop_var = _FOR_VAR.search(cond) if branch.kind == "loop" else None
        if loop_var is not None:
            names.discard(loop_var.group(1))
        if names and not doubt:
            doubt = (
                f"`{sorted(names)[0]}` in `{cond}` (line {branch.span.line}) decides "
                "which threads run it, and how often"
            )
    return unit, doubt


def _sync_calls(
    region: Region, fn: Function, source: SourceFile, tasks: list[Task]
) -> tuple[list[Call], list[tuple[int, str, int]]]:
    """Calls whose callee holds a barrier, and calls that may (unknown callees)."""
    barriers = [
        c.directive.span.start_byte
        for c in source.constructs
        if _first(c) == "barrier" and c.directive.span is not None
    ]
    sure: list[Call] = []
    maybe: list[tuple[int, str, int]] = []
    for call in fn.call_sites:
        pos = call.span.start_byte
        if not _contains(region, pos) or _context(tasks, pos) != -1:
            continue
        name = call.name
        if name.startswith("omp_") or name in PURE_FUNCTIONS or name in _NO_SYNC:
            continue
        callee = source.function(name)
        if callee is None:
            maybe.append((pos, name, call.span.line))
        elif any(callee.span.start_byte <= b < callee.span.end_byte for b in barriers):
            sure.append(call)
    return sure, maybe


def _region_doubt(
    region: Region, inner: list[Region], fn: Function, source: SourceFile
) -> str:
    """Why no verdict in the region can be sure, "" when nothing stands in the way."""
    broken = [e for e in source.errors if _contains(region, e.start_byte)]
    if broken:
        return f"the parser could not read line {broken[0].line} of the region"
    for var in fn.locals:
        # `double * RESTRICT p;` with the macro unknown declares `RESTRICT`, and
        # the real variable goes unseen.
        at = var.span.start_byte if var.span else -1
        if _contains(region, at) and len(var.name) > 1 and var.name.isupper():
            return (
                f"the declaration at line {var.span.line if var.span else 0} uses "
                f"`{var.name}`, a macro the checker cannot expand"
            )
    if any(_first(c) == "flush" for c in inner):
        return "`flush` builds hand-made synchronisation the model does not follow"
    for c in inner:
        names = {cl.name for cl in c.directive.clauses} | set(c.directive.name.split())
        if _first(c) == "atomic" and names & _MEMORY_ORDER:
            return (
                f"the `atomic` with a memory order at line {c.span.line} builds "
                "hand-made synchronisation the model does not follow"
            )
    return ""


def _atomic_targets(inner: list[Region], fn: Function) -> dict[int, frozenset[str]]:
    """The location each `atomic` construct accesses atomically, by pragma start.

    Only `x` is atomic in `x += expr`, `v = x` (read) or `v = x++` (capture): the
    other variables of the statement are plain accesses.
    """
    out: dict[int, frozenset[str]] = {}
    for construct in inner:
        if _first(construct) != "atomic":
            continue
        refs = [
            r
            for r in fn.refs
            if _contains(construct, r.span.start_byte) and not r.subscripts
        ]
        words = {c.name for c in construct.directive.clauses} | set(
            construct.directive.name.split()
        )
        updates = {r.name for r in refs if r.kind is AccessKind.UPDATE}
        if "read" in words:
            names = {r.name for r in refs if r.kind is AccessKind.READ}
        elif updates:
            names = updates
        else:
            names = {r.name for r in refs if r.is_write}
        array_targets = {
            r.name
            for r in fn.refs
            if _contains(construct, r.span.start_byte) and r.subscripts and r.is_write
        }
        out[_at(construct)] = frozenset(names | array_targets)
    return out


def _model(region: Region, fn: Function, source: SourceFile) -> RegionModel:
    inner = [c for c in source.constructs if _within(c, region)]
    dropped = [c for c in inner if _first(c) in _DROPPED]
    inner = [c for c in inner if not any(_within(c, d) for d in dropped)]
    inner = [c for c in inner if c not in dropped]
    tasks = _tasks(region, inner, source)
    barrier_calls, maybe_syncs = _sync_calls(region, fn, source, tasks)
    bounds, phases, merged = _phases(region, inner, source, barrier_calls)
    loops = [b.span.start_byte for b in source.branches if b.kind == "loop"]
    env = environment(region, inner, fn, source)
    scene = _Scene(
        region,
        inner,
        tasks,
        bounds,
        phases,
        lock_table(region, fn, source, tasks),
        env,
        loops,
        _atomic_targets(inner, fn),
        [b for b in source.branches if _contains(region, b.span.start_byte)],
    )
    accesses: list[Access] = []
    for ref in fn.refs:
        pos = ref.span.start_byte
        if not _contains(region, pos) or any(_contains(d, pos) for d in dropped):
            continue
        if scene.locks.in_call(pos):
            continue
        made = _access(scene, ref, pos, None)
        if made is not None:
            accesses.append(made)
    for call, state in callee_state(region, fn, source, env):
        if any(_contains(d, call.span.start_byte) for d in dropped):
            continue
        made = _access(scene, state, call.span.start_byte, call)
        if made is not None:
            accesses.append(made)
    waits = tuple(
        (_at(c), _context(tasks, _at(c))) for c in inner if _first(c) == "taskwait"
    )
    groups = tuple(
        (_at(c), c.span.end_byte, _context(tasks, _at(c)))
        for c in inner
        if _first(c) == "taskgroup"
        or (_first(c) == "taskloop" and c.directive.clause("nogroup") is None)
    )
    doubt = _region_doubt(region, inner, fn, source)
    return RegionModel(
        region=region,
        accesses=tuple(accesses),
        tasks=tuple(tasks),
        waits=waits,
        groups=groups,
        merged=tuple(merged),
        maybe_syncs=tuple(maybe_syncs),
        doubt=doubt,
    )


def region_models(source: SourceFile) -> tuple[RegionModel, ...]:
    """A model for each `parallel` region (not `parallel for`) of the file."""
    out: list[RegionModel] = []
    for region in source.constructs:
        if not _is_region(region):
            continue
        fn = next(
            (
                f
                for f in source.functions
                if f.span.start_byte <= region.span.start_byte < f.span.end_byte
            ),
            None,
        )
        if fn is not None:
            out.append(_model(region, fn, source))
    return tuple(out)
