"""May two accesses of one region happen in parallel? The rule that lets them."""

from __future__ import annotations

from accls.analysis.mhp_arms import opposite_arms
from accls.analysis.mhp_loop_scalars import loops_share_scalar
from accls.analysis.mhp_model import Access, RegionModel, Task, Unit
from accls.analysis.mhp_tasks import EVERY_THREAD

__all__ = ["parallel_rule"]

_CONFLICT = frozenset({"out", "inout", "mutexinoutset", "inoutset"})


def _unit(unit: Unit) -> str:
    if unit.kind == "single":
        if unit.nowait:
            return f"the `single nowait` at line {unit.line} ends without a barrier"
        return f"one thread runs the `single` at line {unit.line}"
    if unit.kind == "master" and unit.word.startswith("if"):
        return f"one thread runs the `{unit.word}` branch at line {unit.line}"
    if unit.kind == "master":
        word = unit.word or "master"
        return f"the `{word}` at line {unit.line} has no implied barrier"
    if unit.kind == "loop":
        if unit.nowait:
            return f"the `for nowait` loop at line {unit.line} ends without a barrier"
        return f"the threads of the `for` loop at line {unit.line} run it at once"
    if unit.kind == "section":
        return f"the section at line {unit.line} runs on its own thread"
    return "code outside worksharing constructs runs on every thread"


def _merged(model: RegionModel, a: Access, b: Access) -> str:
    for phase, body, barrier_line in model.merged:
        inside = all(body.start_byte <= x.pos < body.end_byte for x in (a, b))
        if phase == a.phase and inside:
            return (
                f"; the barrier at line {barrier_line} does not separate them: the "
                f"loop at line {body.line} brings each thread back before it"
            )
    return ""


def _threads(a: Access, b: Access) -> str | None:
    """Why different threads may run `a` and `b` at once; None if one thread does."""
    ua, ub = a.unit, b.unit
    if ua.kind == "team" or ub.kind == "team":
        if ua.kind == ub.kind:
            return _unit(ua)
        other = ub if ua.kind == "team" else ua
        return f"{_unit(Unit('team', 0))}, while {_unit(other)}"
    if ua == ub:
        if ua.kind == "single" and ua.repeated:
            return (
                f"the `single nowait` at line {ua.line} sits in a loop: the next "
                "iteration's `single` may run on another thread"
            )
        return None
    if ua.kind == ub.kind == "master":
        if ua.filter == ub.filter:
            return None
        if ua.word.startswith("if") or ub.word.startswith("if"):
            return (
                f"the branches at lines {ua.line} and {ub.line} run on different "
                "threads"
            )
        return "`masked` constructs with different filters run on different threads"
    return f"{_unit(ua)} and {_unit(ub)}, so they may overlap"


def _waited(model: RegionModel, chain: tuple[int, ...], pos: int, ctx: int) -> bool:
    """True if the tasks `chain` (a child of `ctx` first) are done by `pos`."""
    first = model.task(chain[0])
    for start, end, group_ctx in model.groups:
        if group_ctx == ctx and start <= first.id < end <= pos:
            return True
    done = first.undeferred or any(
        w_ctx == ctx and first.id < w <= pos and _passed(model, w, pos, first.id)
        for w, w_ctx in model.waits
    )
    done = done or any(
        w_ctx == ctx
        and first.id < w <= pos
        and _deps_meet(first.deps, deps)
        and _passed(model, w, pos, first.id)
        for w, w_ctx, deps in model.dep_waits
    )
    return done and _joined(model, chain[1:])


def _passed(model: RegionModel, wait: int, pos: int, made: int) -> bool:
    """True when each path that makes the task (at `made`) to `pos` meets the wait.

    A `taskwait` in an `if` arm orders what follows it in that arm, and the
    tasks made in that arm; not a task made before the `if` against code after.
    """
    loops = {(s.start_byte, s.end_byte) for s in model.loops}
    return all(
        s.start_byte <= pos < s.end_byte or s.start_byte <= made < s.end_byte
        for s in model.branches
        if (s.start_byte, s.end_byte) not in loops and s.start_byte <= wait < s.end_byte
    )


def _deps_meet(
    mine: tuple[tuple[str, str], ...], theirs: tuple[tuple[str, str], ...]
) -> bool:
    """True when a task with `mine` must finish before one with `theirs` starts."""
    return any(
        item == other and (kind in _CONFLICT or other_kind in _CONFLICT)
        for kind, item in mine
        for other_kind, other in theirs
    )


def _joined(model: RegionModel, chain: tuple[int, ...]) -> bool:
    """True if each task of `chain` is waited for inside its parent."""
    for tid in chain:
        task = model.task(tid)
        parent = model.task(task.parent) if task.parent >= 0 else None
        end = parent.span_end if parent else model.region.span.end_byte
        waited = task.undeferred or any(
            ctx == task.parent and task.id < w < end and _passed(model, w, end, task.id)
            for w, ctx in model.waits
        )
        grouped = any(
            ctx == task.parent and s <= task.id < e for s, e, ctx in model.groups
        )
        if not (waited or grouped):
            return False
    return True


def _ordered_by_depend(first: Task, second: Task) -> bool:
    for kind, item in first.deps:
        for other_kind, other_item in second.deps:
            if item == other_item and (kind in _CONFLICT or other_kind in _CONFLICT):
                return True
    return False


def _creator_rule(model: RegionModel, chain: tuple[int, ...], pos: int) -> str | None:
    """Rule for a task chain against its creator's own code at `pos`."""
    first = model.task(chain[0])
    if pos < first.id and not _again(model, first, pos):
        return None
    if pos > first.id and _waited(model, chain, pos, first.parent):
        return None
    deepest = model.task(chain[-1])
    if len(chain) > 1 and any(
        ctx == first.parent and first.id < w <= pos for w, ctx in model.waits
    ):
        return (
            f"the `taskwait` after line {first.line} waits for child tasks only, not "
            f"for the task at line {deepest.line} that a child created"
        )
    what = (
        f"the tasks of the `taskloop nogroup` at line {first.line}"
        if first.taskloop
        else f"the task at line {first.line}"
    )
    return (
        f"{what} may still run: no `taskwait`, `taskgroup` end or barrier lies "
        "between its creation and the other access"
    )


def _again(model: RegionModel, task: Task, pos: int) -> bool:
    """True when the creator's code at `pos`, before the task in the text, reruns.

    A loop around both (its header included: `i++` runs after each body) runs
    `pos` again after the task's creation, unless a `taskwait` later in the body,
    or earlier than `pos` in it, or a `taskgroup` ending in the body, waits for it.
    """
    for body in model.loops:
        start, end = body.start_byte, body.end_byte
        if not start <= task.id < end:
            continue
        head = min((h for h, e in model.heads if e == start), default=start)
        if not head <= pos < end:
            continue
        waited = any(
            ctx == task.parent and (task.id < w < end or start <= w < pos)
            for w, ctx in model.waits
        )
        grouped = any(
            ctx == task.parent and s <= task.id < e <= end for s, e, ctx in model.groups
        )
        if not (waited or grouped or task.undeferred):
            return True
    return False


def _sibling_rule(
    model: RegionModel, ca: tuple[int, ...], cb: tuple[int, ...]
) -> str | None:
    first_chain, second_chain = (ca, cb) if ca[0] < cb[0] else (cb, ca)
    first, second = model.task(first_chain[0]), model.task(second_chain[0])
    if _waited(model, first_chain, second.id, first.parent):
        return None
    deep_a, deep_b = model.task(ca[-1]), model.task(cb[-1])
    if _ordered_by_depend(first, second) and not first.multi and not second.multi:
        if _joined(model, first_chain[1:]):
            return None
        return (
            f"`depend` orders the tasks at lines {first.line} and {second.line}, "
            "but not the tasks they create: a task's end does not wait for its children"
        )
    if _ordered_by_depend(deep_a, deep_b) and deep_a.parent != deep_b.parent:
        return (
            f"`depend` orders sibling tasks only; the tasks at lines {deep_a.line} and "
            f"{deep_b.line} have different parents"
        )
    return (
        f"the sibling tasks at lines {first.line} and {second.line} are not ordered "
        "by `depend`, `taskwait` or `taskgroup`"
    )


def _exclusive(model: RegionModel, a: Access, b: Access, k: int) -> bool:
    """True when the tasks (or the creator's code) lie in two arms of one `if`.

    The creator must be one: no thread of a team, no task of several instances.
    """
    if "team" in (a.unit.kind, b.unit.kind) or "loop" in (a.unit.kind, b.unit.kind):
        return False
    if any(model.task(t).multi for t in a.tasks[:k]):
        return False
    ta, tb = a.tasks[k:], b.tasks[k:]
    p, q = (ta[0] if ta else a.pos), (tb[0] if tb else b.pos)
    return opposite_arms(model.arms, model.loops, p, q) is not None


def _tasks(model: RegionModel, a: Access, b: Access) -> str | None:
    """Rule for two accesses of one thread's sequential code and its tasks."""
    ta, tb = a.tasks, b.tasks
    k = 0
    while k < min(len(ta), len(tb)) and ta[k] == tb[k]:
        k += 1
    if len(ta) == len(tb) == k:
        # `if (tid == 0)` around the creation leaves one creator after all.
        one = a.unit.kind not in ("team", "loop")
        multi = next(
            (
                model.task(t)
                for t in ta
                if model.task(t).multi
                and not (one and model.task(t).multi == EVERY_THREAD)
            ),
            None,
        )
        if multi is None or (multi.taskloop and a.tasks[-1] == multi.id):
            return None  # one instance in program order, or a taskloop's own loop
        return f"the task at line {multi.line} runs as several instances: {multi.multi}"
    if _exclusive(model, a, b, k):
        return None  # made and run in the two arms of one `if`: never both
    if len(ta) == k:
        return _creator_rule(model, tb[k:], a.pos)
    if len(tb) == k:
        return _creator_rule(model, ta[k:], b.pos)
    return _sibling_rule(model, ta[k:], tb[k:])


def parallel_rule(model: RegionModel, a: Access, b: Access) -> tuple[str, str] | None:
    """(`threads`|`tasks`, rule) when `a` and `b` may happen in parallel."""
    if a.phase != b.phase:
        return None
    loops = a.unit.kind == b.unit.kind == "loop" and not (a.tasks or b.tasks)
    if loops and not loops_share_scalar(model, a, b):
        return None  # worksharing loops: the dependence checks and ACC111 cover them
    rule = _threads(a, b)
    if rule is not None:
        return "threads", rule + _merged(model, a, b)
    rule = _tasks(model, a, b)
    return ("tasks", rule) if rule is not None else None
