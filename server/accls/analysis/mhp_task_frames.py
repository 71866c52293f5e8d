"""A deferred task sharing a local whose block ends before anything waits for it.

`void launch(int k) { double f = k; #pragma omp task shared(f) out[k] = f; }`
returns while the task may not have run: the task reads `f` in a frame the
next call reuses. Something that waits for the task inside the local's block
(`taskwait`, `barrier`, the end of an enclosing `taskgroup`, or of a construct
with an implicit barrier: `parallel`, `single`, `for`, `sections` without
`nowait`, even one the local is declared in) orders it before the storage
goes; an `if` or `final` clause may make the task undeferred. Anything else is
a race with the storage's next user.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import TASK_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_callees import is_static
from accls.analysis.mhp_constructs import contains, first_word
from accls.frontend import Function, Region, SourceFile, Var

__all__ = ["task_frame_findings"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_WAITS = frozenset({"taskwait", "barrier"})
_BARRIER_END = frozenset({"parallel", "single", "for", "sections", "taskgroup"})
_UNDEFERRED = frozenset({"if", "final"})


def task_frame_findings(source: SourceFile) -> list[Finding]:
    """TASK_RACE for each local a deferred task shares past the local's block."""
    out: list[Finding] = []
    for fn in source.functions:
        start, end = fn.span.start_byte, fn.span.end_byte
        mine = [c for c in source.constructs if start <= c.span.start_byte < end]
        for task in mine:
            if task.directive.name != "task":
                continue
            if any(c.name in _UNDEFERRED for c in task.directive.clauses):
                continue
            for name in _shared(task):
                made = _frame_race(task, name, fn, mine, source)
                if made is not None:
                    out.append(made)
                    break
    return out


def _shared(task: Region) -> list[str]:
    return [
        n
        for c in task.directive.clauses
        if c.name == "shared"
        for n in _NAME.findall(c.args or "")
    ]


def _frame_race(
    task: Region, name: str, fn: Function, mine: list[Region], source: SourceFile
) -> Finding | None:
    var = fn.lookup(name)
    if var is None or not _frame_local(var, fn) or is_static(fn, var, source.data):
        return None
    assert var.span is not None
    decl, gone = var.span.start_byte, var.scope_end
    if not decl < task.span.start_byte < gone:
        return None
    for other in mine:
        word = first_word(other)
        at = other.span.start_byte
        if word in _WAITS and task.span.end_byte <= at < gone:
            return None  # waited for before the block ends
        if (
            word in _BARRIER_END
            and other.directive.clause("nowait") is None
            and contains(other, task.span.start_byte)
        ):
            # the construct's end waits: before the block's end when the local
            # is outside it; at it when inside (`taskgroup { int x; task }`),
            # which is not counted as a race
            return None
    used = [
        r
        for r in fn.refs
        if r.name == name and contains(task, r.span.start_byte) and not r.subscripts
    ]
    if not used:
        return None
    ref = used[0]
    line = source.data.count(b"\n", 0, gone) + 1
    return finding(
        TASK_RACE,
        ref.span,
        first=name,
        first_access="written in the task" if ref.is_write else "read in the task",
        first_line=ref.span.line,
        second=name,
        second_access="a local whose block ends at line " + str(line),
        second_line=var.span.line,
        overlap="may be used after its storage is gone",
        region="task",
        line=task.directive.span.line if task.directive.span else ref.span.line,
        rule=f"`{name}` is shared with a deferred task, and nothing waits for the "
        f"task before `{name}`'s block ends: the next user of the storage races "
        "with the task",
        fix=f"add `#pragma omp taskwait` before line {line}, or make `{name}` "
        "`firstprivate`",
    )


def _frame_local(var: Var, fn: Function) -> bool:
    """A non-static local of `fn` with a known declaration and block end."""
    if var.scope != "local" or var.static or var.span is None:
        return False
    if var.scope_end < 0 or var.name in {p.name for p in fn.params}:
        return False
    return fn.span.start_byte <= var.span.start_byte < fn.span.end_byte
