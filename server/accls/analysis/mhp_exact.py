"""Pair questions the concurrency model settles exactly, by counting or by form.

Thread-number slots of a `num_threads(K)` team, the instances of a task made once
per loop iteration, a plain flag spun on under `flush`, and `depend` items on
different constant elements.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accls.analysis.depend_items import distinct_constants
from accls.analysis.depend_sections import sections_apart
from accls.analysis.mhp_cyclic import block_at
from accls.analysis.mhp_env import Environment, Location
from accls.analysis.mhp_model import Access, RegionModel
from accls.analysis.mhp_overlap import distinct_instances
from accls.analysis.pragma_syntax import depend_problem
from accls.analysis.races_index import int_at
from accls.frontend import Clause

__all__ = [
    "FLAG_RULE",
    "depend_doubt",
    "distinct_constants",
    "own_iteration",
    "plain_flag",
    "thread_slots",
]


_CALL = "omp_get_thread_num"
_TID_CALL = re.compile(r"\bomp_get_thread_num\(\)")


def thread_slots(
    model: RegionModel,
    a: Location,
    b: Location,
    where: tuple[int | None, int | None] = (None, None),
) -> bool | None:
    """Whether two threads of the team meet at one element.

    Decided by trying every pair of thread numbers when each subscript is built
    from the thread number, the team size (`n = omp_get_num_threads()`) and
    literals (`x[(t + 1) % n]`). With `num_threads(K)` the team has K threads;
    without, every team of 2 to 8 threads must meet. None otherwise. `where`
    holds the accesses' positions: which dealing loop's variable a name is.
    """
    clause = model.region.directive.clause("num_threads")
    size = (clause.args or "").strip() if clause is not None else ""
    size = str(dict(model.env.constants).get(size, size))  # `num_threads(T)`
    tids = model.env.tid_vars
    if len(tids) > 1 or len(a.index) != len(b.index) or a.name != b.name:
        return None
    if a.nested or b.nested:
        return None  # a nested team's thread numbers
    # `x[omp_get_thread_num() / 2]`: the call stands for the thread number too
    tid = next(iter(tids)) if tids else _CALL
    if size.isdigit() and 1 < int(size) <= 64:
        return _slots_meet(a, b, tid, model.env, int(size), where)
    if clause is not None:
        return None  # a team size the model does not read
    found = {_slots_meet(a, b, tid, model.env, t, where) for t in range(2, 9)}
    return True if found == {True} else None  # a larger team may still meet


def _slots_meet(
    a: Location,
    b: Location,
    tid: str,
    env: Environment,
    team: int,
    where: tuple[int | None, int | None],
) -> bool | None:
    """Whether two threads of a team of `team` meet; None when not computable."""
    sets = [
        [_elements(loc, tid, env, team, me, pos) for me in range(team)]
        for loc, pos in zip((a, b), where, strict=True)
    ]
    if any(found is None for side in sets for found in side):
        return None
    return any(
        me != other and (sets[0][me] or set()) & (sets[1][other] or set())
        for me in range(team)
        for other in range(team)
    )


def _elements(
    loc: Location, tid: str, env: Environment, team: int, me: int, pos: int | None
) -> set[tuple[int, ...]] | None:
    """The elements thread `me` reaches: over a dealing loop's values, if one."""
    texts = [_TID_CALL.sub(tid, s) for s in loc.index]
    for name in env.size_vars:
        texts = [re.sub(rf"\b{re.escape(name)}\b", str(team), t) for t in texts]
    stops = {c.var: range(me, c.stop, team) for c in env.cyclic if c.names(pos)}
    for whole in env.team_loops:
        if whole.names(pos):  # every thread takes every value below the team size
            stops.setdefault(whole.var, range(whole.first, team))
    for block in env.blocked:
        found = block_at(block, tid, env.size_vars, me, team)
        if found is None:
            return None
        stops.setdefault(block.var, found)
    used = [v for v in stops if any(re.search(rf"\b{v}\b", t) for t in texts)]
    if len(used) > 1 or (used and len(stops[used[0]]) > _DEALT):
        return None
    values: Iterable[int | None] = stops[used[0]] if used else [None]
    out: set[tuple[int, ...]] = set()
    for value in values:
        row: list[int] = []
        for text in texts:
            if value is not None:
                text = re.sub(rf"\b{used[0]}\b", str(value), text)
            got = int_at(text, tid, me)
            if got is None:
                return None
            row.append(got)
        out.add(tuple(row))
    return out


_DEALT = 2048
"""Values of a dealing loop enumerated at most."""


FLAG_RULE = (
    "; the flag is read and written without `atomic`: a `flush` orders memory, but "
    "two plain accesses to one variable still race"
)


def plain_flag(model: RegionModel, a: Access, b: Access) -> bool:
    """True for a hand-made flag: a plain write and a plain read spun on in a loop.

    A `flush` does not make such accesses race-free: the flag itself needs
    `atomic` (OpenMP 5 memory model), so the pair is a race whatever the fences.
    """
    if a.atomic or b.atomic or a.location.form != "scalar" or a is b:
        return False
    if b.location.form != "scalar" or a.location.name != b.location.name:
        return False
    if a.via is not None or b.via is not None or not (a.ref.is_write or b.ref.is_write):
        return False
    reads = [x for x in (a, b) if not x.ref.is_write]
    spun = [(s.start_byte, s.end_byte) for s in model.loops] + list(model.heads)
    return any(lo <= x.pos < hi for x in reads for lo, hi in spun)


def own_iteration(model: RegionModel, a: Access, b: Access) -> bool:
    """True for one access of a per-iteration task whose loop value splits it."""
    if a is not b and a.ref.span != b.ref.span:
        return False
    for task_id in a.tasks:
        task = model.task(task_id)
        if not task.multi.startswith("it is created in a loop"):
            continue
        around = [s for s in model.env.sweeps if s.start <= task.id < s.end]
        if not around:
            return False
        var = max(around, key=lambda s: s.start).var
        return distinct_instances(a.location, model.env, var)
    return False


def depend_doubt(model: RegionModel, a: Access, b: Access) -> str:
    """Why the `depend` items of the two sides' tasks may or may not meet."""
    sides = [[model.task(t) for t in x.tasks] for x in (a, b)]
    for task in (*sides[0], *sides[1]):
        for kind, item in task.deps:
            if kind in ("source", "sink"):
                continue
            if depend_problem(Clause(name="depend", args=f"{kind}: {item}")):
                return (
                    f"the `depend({kind}: {item})` of the task at line {task.line} "
                    "names an expression: what it points to decides whether it orders "
                    "the tasks"
                )
    for first in sides[0]:
        for second in sides[1]:
            for _, item in first.deps:
                for _, other in second.deps:
                    base, other_base = item.split("[")[0], other.split("[")[0]
                    if distinct_constants(item, other) or sections_apart(
                        item, other, model.env.invariant
                    ):
                        continue
                    if item != other and base == other_base and "[" in item + other:
                        return (
                            f"whether `depend` items `{item}` (line {first.line}) and "
                            f"`{other}` (line {second.line}) overlap: the values of "
                            "their subscripts decide"
                        )
    return ""
