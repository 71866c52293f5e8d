"""Sure repairs for race pairs: a line to insert, or a name for a `critical`.

The lines are a `barrier` or `taskwait` before the later access, or a `critical`
above a call whose callee writes shared state.

A repair is offered only where it is valid and orders the pair: a barrier only in
code every thread runs (outside constructs, branches and loops of the region), a
taskwait only in the creating task's own code, after the task; a `critical` only
around a call that is a statement on its own lines, on the host.
"""

from __future__ import annotations

from accls.analysis.mhp_constructs import first_word, pragma_at
from accls.analysis.mhp_insertions import insert_line, line_start
from accls.analysis.mhp_model import Access, RegionModel
from accls.frontend import Region

__all__ = ["barrier_fix", "critical_name_fix", "taskwait_fix"]


def _covers(start: int, end: int, pos: int) -> bool:
    return start <= pos < end


def _statement_start(model: RegionModel, pos: int, after: int) -> int:
    """Where the statement holding `pos` starts: its outermost pragma past `after`."""
    holders = [
        pragma_at(c)
        for c in model.constructs
        if pragma_at(c) > after and _covers(pragma_at(c), c.span.end_byte, pos)
    ]
    return min(holders, default=pos)


def barrier_fix(
    model: RegionModel, data: bytes, first: Access, second: Access
) -> tuple[int, str] | None:
    """A `barrier` before `second` when the construct of `first` ends before it."""
    if first.unit.kind == "team" or first.tasks or second.tasks:
        return None
    words = set(model.region.directive.name.split()[1:])
    if second.unit.kind == "section" or words & {"sections", "single", "masked"}:
        return None  # a barrier may not stand inside a worksharing construct
    at = _statement_start(model, second.pos, first.pos)
    inside = any(
        _covers(pragma_at(c), c.span.end_byte, at) and pragma_at(c) != at
        for c in model.constructs
    )
    looped = any(_covers(b.start_byte, b.end_byte, at) for b in model.branches)
    if inside or looped or at <= first.pos:
        return None
    start = line_start(data, at)
    return insert_line(data, start, "barrier") if start is not None else None


def taskwait_fix(
    model: RegionModel, data: bytes, first: Access, second: Access
) -> tuple[int, str] | None:
    """A `taskwait` before `second` when `first` is in a child task of its creator."""
    if len(first.tasks) != len(second.tasks) + 1 or first.tasks[:-1] != second.tasks:
        return None
    child = model.task(first.tasks[-1])
    at = _statement_start(model, second.pos, child.span_end - 1)
    if at < child.span_end:
        return None
    start = line_start(data, at)
    return insert_line(data, start, "taskwait") if start is not None else None


def critical_name_fix(
    model: RegionModel, data: bytes, first: Access, second: Access
) -> tuple[int, str] | None:
    """Name an unnamed `critical` after the named one it fails to exclude."""
    holds = [set(x.held) for x in (first, second)]
    if first.atomic or second.atomic or first.partial or second.partial:
        return None
    if not all(len(h) == 1 and next(iter(h)).startswith("critical:") for h in holds):
        return None
    names = [next(iter(h)).partition(":")[2] for h in holds]
    if sorted(bool(n) for n in names) != [False, True]:
        return None  # both named (a rename, not an insertion), or both unnamed
    plain = (first, second)[names.index("")]
    named = next(n for n in names if n)
    region = _innermost_critical(model, plain.pos)
    if region is None or region.directive.span is None:
        return None
    start = region.directive.span.start_byte
    word = data.find(b"critical", start, region.directive.span.end_byte)
    if word < 0:
        return None
    return word + len("critical"), f"({named})"


def _innermost_critical(model: RegionModel, pos: int) -> Region | None:
    around = [
        c
        for c in model.constructs
        if first_word(c) == "critical" and _covers(pragma_at(c), c.span.end_byte, pos)
    ]
    return max(around, key=pragma_at, default=None)
