"""Pointers every instance of a task copies with one address: one pointee for all.

A task's `firstprivate` copy of a pointer (explicit, or implicit for a name
private where the task is made) is its own pointer, but it points where the
creator's did. When the creator's pointer cannot change between the tasks it
makes, every instance reaches the same object through its copy:

- a pointer set before the region and never in it;
- a local pointer declared in a `single` (`master`, `masked`) that makes the
  tasks, set only by its declaration, outside any loop that makes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.pragma_scope import list_names
from accls.frontend import Function, Region, SourceFile, Var

__all__ = ["task_copied_pointers"]

_TASKS = frozenset({"task", "taskloop"})
_ONE_THREAD = frozenset({"single", "master", "masked"})


def task_copied_pointers(
    region: Region, inner: Sequence[Region], fn: Function, source: SourceFile
) -> frozenset[str]:
    """The pointers the region's tasks copy, whose copies all hold one address."""
    out: set[str] = set()
    for task in (c for c in inner if first_word(c) in _TASKS):
        for name in _pointers_used(task, fn) - _clause(task, "private"):
            var = _pointer(name, fn, source)
            if var is None or var.static:
                continue
            declared = var.span.start_byte if var.span is not None else -1
            if not contains(region, declared):
                fixed = name in _clause(task, "firstprivate") and not _stores(
                    name, region, fn
                )
            else:
                fixed = _set_once_for_tasks(var, task, region, inner, fn, source)
            if fixed:
                out.add(name)
    return frozenset(out)


def _clause(construct: Region, clause: str) -> set[str]:
    return {
        n
        for c in construct.directive.clauses
        if c.name == clause
        for n in list_names(c.args or "")
    }


def _pointers_used(task: Region, fn: Function) -> set[str]:
    """The names the task reaches through (`p[i]`, `*p`)."""
    return {
        r.name
        for r in fn.refs
        if (r.subscripts or r.deref) and contains(task, r.span.start_byte)
    }


def _pointer(name: str, fn: Function, source: SourceFile) -> Var | None:
    var = fn.lookup(name) or next((v for v in source.globals if v.name == name), None)
    if var is None or var.pointers != 1 or var.dims:
        return None
    if sum(1 for v in fn.locals if v.name == name) > 1:
        return None  # two declarations: which one the task sees is not followed
    return var


def _stores(name: str, region: Region, fn: Function) -> list[int]:
    """Where the region sets the pointer itself (not what it points to)."""
    return [
        r.span.start_byte
        for r in fn.refs
        if r.name == name
        and r.is_write
        and not r.subscripts
        and not r.deref
        and contains(region, r.span.start_byte)
    ]


def _set_once_for_tasks(
    var: Var,
    task: Region,
    region: Region,
    inner: Sequence[Region],
    fn: Function,
    source: SourceFile,
) -> bool:
    """True for a local of one creating thread, set by its declaration only."""
    at = pragma_at(task)
    declared = var.span.start_byte if var.span is not None else -1
    stores = _stores(var.name, region, fn)
    line = var.span.line if var.span is not None else -1
    if len(stores) > 1 or any(
        r.span.line != line for r in fn.refs if r.span.start_byte in stores
    ):
        return False
    one_thread = any(
        first_word(c) in _ONE_THREAD and contains(c, declared) and contains(c, at)
        for c in inner
    )
    remade = any(
        b.kind == "loop"
        and b.span.start_byte <= declared < b.span.end_byte
        and b.span.start_byte <= at < b.span.end_byte
        for b in source.branches
    )
    return one_thread and not remade and not contains(task, declared)
