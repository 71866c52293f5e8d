"""Explicit tasks of a parallel region: parents, instances, `depend` and `if(0)`."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.depend_fixed import fixed_object
from accls.analysis.depend_items import split_depend
from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.frontend import Region, SourceFile, Span

__all__ = ["EVERY_THREAD", "Task", "depend_items", "explicit_tasks", "task_context"]

EVERY_THREAD = "every thread creates one"
"""Why a task made in code every thread runs has several instances."""
_ONE_THREAD = frozenset({"single", "master", "masked", "section", "sections", "tasks"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Task:
    """An explicit task (or taskloop) construct of a region."""

    id: int  # start byte of the pragma
    line: int
    parent: int  # the enclosing task's id, -1 for the implicit task
    multi: str  # why several instances may run at once, "" if one
    deps: tuple[tuple[str, str], ...]  # (type, list item) of `depend` clauses
    undeferred: bool  # `if(0)`, or made in a `final` task: the creator waits for it
    span_end: int
    taskloop: bool = False
    final: bool = False  # `final(1)`: the tasks it makes are included tasks


def depend_items(region: Region) -> tuple[tuple[str, str], ...]:
    """(type, list item) of each `depend` clause item, spaces removed."""
    out: list[tuple[str, str]] = []
    for clause in region.directive.clauses:
        if clause.name != "depend" or not clause.args:
            continue
        split = split_depend(clause.args)
        if split is not None:
            out.extend((split[0], item) for item in split[1])
    return tuple(out)


def explicit_tasks(
    region: Region, inner: list[Region], source: SourceFile
) -> list[Task]:
    """The task and taskloop constructs of a region, parents before children."""
    found = [c for c in inner if first_word(c) in ("task", "taskloop")]
    loops = [b.span for b in source.branches if b.kind == "loop"]
    out: list[Task] = []
    for construct in found:
        parents = [
            t for t in out if contains(_region_of(found, t), pragma_at(construct))
        ]
        parent = parents[-1] if parents else None
        # OpenMP: every task a final task makes (at any depth) is final and included
        included = parent is not None and parent.final
        scope_start = parent.id if parent else region.span.start_byte
        multi = ""
        if first_word(construct) == "taskloop":
            multi = "a `taskloop` runs its iterations as tasks at once"
        elif parent is not None and parent.multi:
            multi = parent.multi
        elif any(
            scope_start < s.start_byte <= pragma_at(construct) < s.end_byte
            for s in loops
        ):
            multi = "it is created in a loop, once per iteration"
            if included or _serialized(construct, inner, loops, source):
                multi = ""
        elif parent is None and not _one_thread(region, inner, pragma_at(construct)):
            multi = EVERY_THREAD
        cond = construct.directive.clause("if")
        flag = (cond.args or "").split(":")[-1].strip() if cond else ""
        out.append(
            Task(
                id=pragma_at(construct),
                line=construct.directive.span.line if construct.directive.span else 0,
                parent=parent.id if parent else -1,
                multi=multi,
                deps=depend_items(construct),
                undeferred=included or _false(flag),
                span_end=construct.span.end_byte,
                taskloop=first_word(construct) == "taskloop",
                final=included or _final(construct),
            )
        )
    return out


def _false(flag: str) -> bool:
    """True for a clause argument that is a constant false (`0`, `false`)."""
    return flag in ("0", "false")


def _final(construct: Region) -> bool:
    """True for a `final` clause whose argument is a nonzero constant."""
    clause = construct.directive.clause("final")
    flag = (clause.args or "").strip() if clause is not None else ""
    return flag == "true" or (flag.isdigit() and int(flag) != 0)


def _serialized(
    construct: Region, inner: list[Region], loops: list[Span], source: SourceFile
) -> bool:
    """True if the instances a loop creates run one at a time."""
    at = pragma_at(construct)
    cond = construct.directive.clause("if")
    if cond is not None and _false((cond.args or "").split(":")[-1].strip()):
        return True
    # `mutexinoutset` instances run one at a time too, in some order
    if any(
        k in ("out", "inout", "mutexinoutset") and fixed_object(item, at, source)
        for k, item in depend_items(construct)
    ):
        return True
    body = min(
        (s for s in loops if s.start_byte <= at < s.end_byte),
        key=lambda s: s.end_byte - s.start_byte,
    )
    return any(
        first_word(c) == "taskwait" and at < pragma_at(c) < body.end_byte for c in inner
    )


def _one_thread(region: Region, inner: list[Region], pos: int) -> bool:
    """True if only one thread runs the code at `pos` of the region."""
    if set(region.directive.name.split()) & _ONE_THREAD:
        return True
    return any(first_word(c) in _ONE_THREAD and contains(c, pos) for c in inner)


def _region_of(found: list[Region], task: Task) -> Region:
    return next(c for c in found if pragma_at(c) == task.id)


def task_context(tasks: list[Task], pos: int) -> int:
    """The innermost task (id) whose construct contains `pos`, -1 for none."""
    inside = [t.id for t in tasks if t.id <= pos < t.span_end]
    return inside[-1] if inside else -1
