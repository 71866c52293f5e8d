"""Sure repairs for race pairs: a `barrier` or `taskwait` line before the later access.

A repair is offered only where it is valid and orders the pair: a barrier only in
code every thread runs (outside constructs, branches and loops of the region), a
taskwait only in the creating task's own code, after the task.
"""

from __future__ import annotations

from accls.analysis.mhp_constructs import pragma_at
from accls.analysis.mhp_model import Access, RegionModel

__all__ = ["barrier_fix", "taskwait_fix"]


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


def _line_start(data: bytes, pos: int) -> int | None:
    """The start of `pos`'s line when the statement at `pos` starts that line."""
    start = data.rfind(b"\n", 0, pos) + 1
    if any(mark in data[start:pos] for mark in (b";", b"{", b"}")):
        return None
    before = data[:start].rstrip()
    last_line = before[before.rfind(b"\n") + 1 :].lstrip()
    if (
        before
        and before[-1:] not in (b";", b"{", b"}")
        and not last_line.startswith(b"#")
    ):
        return None  # the statement began on an earlier line
    return start


def _insert(data: bytes, at: int, directive: str) -> tuple[int, str]:
    line_end = data.find(b"\n", at)
    line = data[at : line_end if line_end >= 0 else len(data)]
    indent = line[: len(line) - len(line.lstrip())].decode("utf-8", "replace")
    return at, f"{indent}#pragma omp {directive}\n"


def barrier_fix(
    model: RegionModel, data: bytes, first: Access, second: Access
) -> tuple[int, str] | None:
    """A `barrier` before `second` when the construct of `first` ends before it."""
    if first.unit.kind == "team" or first.tasks or second.tasks:
        return None
    at = _statement_start(model, second.pos, first.pos)
    inside = any(
        _covers(pragma_at(c), c.span.end_byte, at) and pragma_at(c) != at
        for c in model.constructs
    )
    looped = any(_covers(b.start_byte, b.end_byte, at) for b in model.branches)
    if inside or looped or at <= first.pos:
        return None
    start = _line_start(data, at)
    return _insert(data, start, "barrier") if start is not None else None


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
    start = _line_start(data, at)
    return _insert(data, start, "taskwait") if start is not None else None
