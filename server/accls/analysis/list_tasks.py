"""ACC122 for one task per linked-list node that also touches the next node.

`for (node_t *p = head; p; p = p->next)` with `#pragma omp task firstprivate(p)`
in its body makes one task per node, all of them able to run at once. Each
task's `p` is the previous task's `p->next`, so a task that writes `p->val`
while another reads (or writes) `p->next->val` meets its neighbour's task on
one node: a race, whatever the list holds (the loop visits a node once), on
any list of more than a few nodes.

The accesses are the task body's own and those of a function of the file it
calls with `p` itself (`relax_node(p)`), read as the caller's; paths only of
fields (no subscripts), not atomic, each run on every instance but the last
few: outside any branch but one that only tests that the list goes on
(`p->next ? p->next->val : 0`, `if (p->next != NULL)`). The task may have no
`depend`, `if`, `final`, `shared` or `default` clause, `p` must be each task's
own (`firstprivate`, or declared in the loop's header), no `taskwait` or
barrier may follow the task in the loop's body, and the loop must lie in a
`parallel` region of the function.
"""

from __future__ import annotations

import re

from accls.analysis.concurrency_kinds import TASK_RACE
from accls.analysis.finding_types import Finding, finding
from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.frontend import Branch, Function, Ref, Region, SourceFile

__all__ = ["list_task_findings"]

_ADVANCE = re.compile(r";\s*([A-Za-z_]\w*)\s*=\s*\1\s*->\s*([A-Za-z_]\w*)\s*\)?\s*$")
_NULL_TEST = re.compile(r"\s*(.+?)\s*(?:!=\s*(?:NULL|0|nullptr)\s*)?")
_CLAUSES = frozenset({"depend", "if", "final", "shared", "default"})
_WAITS = frozenset({"taskwait", "barrier", "taskgroup"})

Path = tuple[str, ...]


def list_task_findings(source: SourceFile) -> list[Finding]:
    """A task per list node writing what the next node's task reads or writes."""
    out: list[Finding] = []
    for task in source.constructs:
        if task.directive.dialect != "omp" or task.directive.name != "task":
            continue
        if any(task.directive.clause(c) is not None for c in _CLAUSES):
            continue
        fn = next(
            (f for f in source.functions if contains_fn(f, pragma_at(task))), None
        )
        loop = _list_loop(task, fn, source) if fn is not None else None
        if fn is None or loop is None:
            continue
        var, link = loop
        header = _innermost_loop(task, fn, source)
        if header is None or not _own_pointer(task, var, header.condition):
            continue  # a shared `p`: each task reads whichever node it holds now
        made = _clash(task, fn, source, var, link)
        if made is not None:
            out.append(made)
    return out


def contains_fn(fn: Function, pos: int) -> bool:
    """True if byte `pos` lies in the function."""
    return fn.span.start_byte <= pos < fn.span.end_byte


def _innermost_loop(task: Region, fn: Function, source: SourceFile) -> Branch | None:
    """The innermost loop of `fn` around the task's pragma."""
    at = pragma_at(task)
    loops = [
        b
        for b in source.branches
        if b.kind == "loop"
        and b.span.start_byte <= at < b.span.end_byte
        and contains_fn(fn, b.span.start_byte)
    ]
    return max(loops, key=lambda b: b.span.start_byte) if loops else None


def _own_pointer(task: Region, var: str, header: str) -> bool:
    """True when each task has its own `var`: `firstprivate`, or the loop's own."""
    clause = task.directive.clause("firstprivate")
    if clause is not None and var in re.findall(r"\w+", clause.args or ""):
        return True
    declared = rf"\s*for\s*\(\s*[A-Za-z_][\w\s]*\*\s*{var}\s*="
    return re.match(declared, header) is not None


def _list_loop(
    task: Region, fn: Function, source: SourceFile
) -> tuple[str, str] | None:
    """(pointer, link field) of the `for` over a list whose body makes the task."""
    at = pragma_at(task)
    loop = _innermost_loop(task, fn, source)
    if loop is None or loop.statement != "for":
        return None
    match = _ADVANCE.search(loop.condition)
    if match is None:
        return None
    inner = [
        c for c in source.constructs if contains_fn(fn, pragma_at(c)) and c is not task
    ]
    if not any(
        "parallel" in c.directive.name.split() and contains(c, at) for c in inner
    ):
        return None  # no team: the tasks run on the one thread
    if any(
        first_word(c) in _WAITS
        and loop.span.start_byte <= pragma_at(c) < loop.span.end_byte
        for c in inner
    ):
        return None  # the instances may be waited for one by one
    if any(
        first_word(c) in ("critical", "ordered", "atomic") and contains(c, at)
        for c in inner
    ):
        return None
    return match.group(1), match.group(2)


def _accesses(
    task: Region, fn: Function, source: SourceFile, var: str, link: str
) -> list[tuple[Ref, Path, Function]]:
    """The task's field accesses through `var`, by path: its own and its callees'."""
    out = [
        (r, path, fn)
        for r in fn.refs
        if contains(task, r.span.start_byte)
        and (path := _path(r, var, link, pragma_at(task), source)) is not None
    ]
    for call in fn.call_sites:
        if not contains(task, call.span.start_byte) or call.args.count(var) != 1:
            continue
        callee = source.function(call.name)
        if callee is None or callee is fn or len(callee.params) != len(call.args):
            continue
        param = callee.params[call.args.index(var)].name
        if any(r.name == param and r.is_write for r in callee.refs):
            continue  # the parameter moves along the list itself
        out += [
            (r, path, callee)
            for r in callee.refs
            if (path := _path(r, param, link, callee.span.start_byte, source))
            is not None
        ]
    return out


def _path(ref: Ref, var: str, link: str, start: int, source: SourceFile) -> Path | None:
    """`("next", "val")` for `var->next->val`, if every instance surely runs it.

    Branches from byte `start` on (the task's, or its callee's) may hold it.
    """
    parts = [p.strip() for p in ref.name.split("->")]
    if len(parts) < 2 or parts[0] != var or ref.subscripts or ref.atomic:
        return None
    if not all(p.isidentifier() for p in parts):
        return None
    for branch in source.branches:
        if (
            not start
            <= branch.span.start_byte
            <= ref.span.start_byte
            < (branch.span.end_byte)
        ):
            continue
        if not _null_test(branch, var, link):
            return None  # may not run
    return tuple(parts[1:])


def _null_test(branch: Branch, var: str, link: str) -> bool:
    """True for an `if` arm that only tests that the list goes on past `var`.

    `if (p->next)`, `p->next != NULL ? .. : ..`: every node but the last few runs it.
    """
    if branch.kind != "if":
        return False
    text = branch.condition.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    tested = _NULL_TEST.fullmatch(text)
    node = "".join(tested.group(1).split()) if tested else ""
    return re.fullmatch(rf"{re.escape(var)}(?:->{re.escape(link)})+", node) is not None


def _clash(
    task: Region, fn: Function, source: SourceFile, var: str, link: str
) -> Finding | None:
    """The first write of a field whose twin on the next node the task uses."""
    found = _accesses(task, fn, source, var, link)
    for write, path, _ in found:
        if not write.is_write or (path[:1] == (link,) and len(path) == 1):
            continue
        for other, other_path, _ in found:
            if other_path != (link, *path) and path != (link, *other_path):
                continue
            line = task.directive.span.line if task.directive.span else task.span.line
            word = "written" if other.is_write else "read"
            return finding(
                TASK_RACE,
                other.span,
                first=write.render(),
                first_access="written",
                first_line=write.span.line,
                second=other.render(),
                second_access=word,
                second_line=other.span.line,
                overlap="may run at once on one node",
                region="task",
                line=line,
                rule=f"the loop makes one task per node, each with its own `{var}`, "
                f"and the task of one node writes `{write.render()}` while the "
                f"task of the node before it reaches the same field through "
                f"`{link}`",
                fix=f"write the new values to another field (or array) and copy them "
                f"back after a `taskwait`, or order the tasks with `depend` clauses "
                f"on the nodes' `{path[-1]}`",
            )
    return None
