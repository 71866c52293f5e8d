"""Tasks that a called function creates and may leave running when it returns.

A task a function makes is a child of the task that runs the call, whatever the
function: the caller's `taskwait` waits for it, but not for the tasks it makes in
turn (a recursive helper that spawns without waiting). The writes those tasks
make to globals and `static` locals are placed at the call, inside one or two
synthetic tasks: the callee's children, and their descendants.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from accls.analysis.extents import declared_extents
from accls.analysis.macro_fold import folded_poly
from accls.analysis.mhp_callees import is_static
from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.mhp_env import Location
from accls.analysis.mhp_tasks import Task, depend_items
from accls.frontend import Call, Function, Ref, Region, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = [
    "Escape",
    "covers",
    "escape_location",
    "escape_tasks",
    "escaping_calls",
    "folded_value",
]

_NAME = re.compile(r"[A-Za-z_]\w*")
_EXCLUDING = frozenset({"critical", "atomic", "single", "master", "masked", "ordered"})


@dataclass(frozen=True, slots=True)
class Escape:
    """A call whose callee may return before the tasks it made are done."""

    call: Call
    writes: tuple[Ref, ...]  # shared writes those tasks (and their callees) make
    line: int  # the callee's task construct that may outlive the call
    deep: bool  # those tasks make tasks too: the caller's grandchildren
    through: frozenset[int] = frozenset()  # writes through a pointer argument


def escaping_calls(
    region: Region, fn: Function, source: SourceFile, threadprivate: frozenset[str]
) -> list[Escape]:
    """The calls of the region to functions that leave tasks running."""
    start, end = region.span.start_byte, region.span.end_byte
    out: list[Escape] = []
    for call in fn.call_sites:
        callee = source.function(call.name)
        if callee is None or not start <= call.span.start_byte < end:
            continue
        open_ = _open_tasks(callee, source)
        if not open_:
            continue
        writes: dict[int, Ref] = {}
        names = _arguments(call, callee, {}, None)
        deep = False
        for task in open_:
            scope = _Scope(callee, task, names)
            for ref in _writes_in(scope, source, threadprivate, set()):
                writes.setdefault(ref.span.start_byte, ref)
            deep = deep or _spawns(callee, task, source, set())
        if writes:
            line = open_[0].directive.span.line if open_[0].directive.span else 0
            through = frozenset(
                at for at, ref in writes.items() if ref.name in names.values()
            )
            out.append(Escape(call, tuple(writes.values()), line, deep, through))
    return out


def escape_tasks(escape: Escape, parent: int) -> tuple[list[Task], int]:
    """The synthetic tasks of an escape under `parent`, and where its writes go.

    They go just past the call, where no access of the caller lies.
    """
    end = escape.call.span.end_byte
    child = Task(
        id=end - 1,
        line=escape.line,
        parent=parent,
        multi="",
        deps=(),
        undeferred=False,
        span_end=end + 1,
    )
    if not escape.deep:
        return [child], end - 1
    grandchild = Task(
        id=end,
        line=escape.line,
        parent=child.id,
        multi="",
        deps=(),
        undeferred=False,
        span_end=end + 1,
    )
    return [child, grandchild], end


def escape_location(
    ref: Ref, fn: Function, source: SourceFile, constants: Mapping[str, int]
) -> Location:
    """Where an escaping write lands: the variable, or some element of the array."""
    if not ref.subscripts:
        return Location(ref.name, "scalar", ())
    index = tuple("".join(s.text.split()) for s in ref.subscripts)
    extent = 0
    if len(index) == 1:
        text = declared_extents(ref.name, 1, fn, source)[0]
        poly = None
        if text is not None:
            poly = folded_poly(text, constants, expression_poly(text))
        if poly is not None and not any(mono for mono, _ in poly.terms):
            extent = sum(coeff for _, coeff in poly.terms)
    return Location(ref.name, "some", index, (None,) * len(index), extent=extent)


def covers(loc: Location, some: Location, constants: Mapping[str, int]) -> bool:
    """True when `loc` is every element of `some`'s array.

    `a[i]` in a loop of `i` from 0 to the declared extent less one meets whichever
    element is written.
    """
    if some.extent <= 0 or loc.form != "loop" or len(loc.index) != 1:
        return False
    var = loc.index[0]
    for sweep in loc.bounds:
        if sweep.var != var or sweep.low is None or sweep.high is None:
            continue
        low, high = (
            folded_value(sweep.low, constants),
            folded_value(sweep.high, constants),
        )
        if low is not None and high is not None and low <= 0 <= some.extent - 1 <= high:
            return True
    return False


def folded_value(
    form: tuple[tuple[str, int], ...], constants: Mapping[str, int]
) -> int | None:
    """The constant a bound's linear form folds to, None when it has names."""
    total = 0
    for key, coeff in form:
        if key == "1":
            total += coeff
        elif key in constants:
            total += coeff * constants[key]
        elif coeff:
            return None
    return total


def _tasks_of(fn: Function, source: SourceFile) -> list[Region]:
    """The deferred task constructs of `fn` (not `if(0)`)."""
    out = []
    for c in source.constructs:
        if first_word(c) not in ("task", "taskloop") or not _inside(fn, c):
            continue
        cond = c.directive.clause("if")
        flag = (cond.args or "").split(":")[-1].strip() if cond else ""
        if flag not in ("0", "false"):
            out.append(c)
    return out


def _inside(fn: Function, c: Region) -> bool:
    return fn.span.start_byte <= pragma_at(c) < fn.span.end_byte


def _open_tasks(fn: Function, source: SourceFile) -> list[Region]:
    """The outermost tasks of `fn` that it does not wait for before returning."""
    tasks = _tasks_of(fn, source)
    top = [t for t in tasks if not any(_nested(t, o) for o in tasks)]
    return [t for t in top if not _waited(fn, t, tasks, source)]


def _nested(inner: Region, outer: Region) -> bool:
    return inner is not outer and contains(outer, pragma_at(inner))


def _waited(
    fn: Function,
    task: Region,
    tasks: list[Region],
    source: SourceFile,
    scope: Region | None = None,
) -> bool:
    """True if the code that makes `task` (`fn`'s own, or `scope`'s) waits for it.

    A later `taskwait` on each path, the end of a `taskgroup` around it, or a
    `taskloop`'s implicit taskgroup.
    """
    if first_word(task) == "taskloop" and task.directive.clause("nogroup") is None:
        return True
    at = pragma_at(task)
    for c in source.constructs:
        if not _inside(fn, c) or any(_nested(c, t) for t in tasks):
            continue
        if scope is not None and not _nested(c, scope):
            continue
        if first_word(c) == "taskgroup" and contains(c, at):
            return True
        if first_word(c) != "taskwait" or depend_items(c):
            continue
        wait = pragma_at(c)
        if wait < task.span.end_byte:
            continue
        arms = [
            b.span
            for b in source.branches
            if b.kind != "loop" and b.span.start_byte <= wait < b.span.end_byte
        ]
        if all(s.start_byte <= at < s.end_byte for s in arms):
            return True
    return False


def _calls_in(
    fn: Function, task: Region | None, source: SourceFile
) -> list[tuple[Call, Function]]:
    """The calls of the program's functions in `fn` (inside `task` when given)."""
    out = []
    for call in fn.call_sites:
        if task is not None and not contains(task, call.span.start_byte):
            continue
        callee = source.function(call.name)
        if callee is not None:
            out.append((call, callee))
    return out


def _arguments(
    call: Call, callee: Function, names: Mapping[str, str], shared: set[str] | None
) -> dict[str, str]:
    """The caller's array each pointer or array parameter names: `fill(cells, ..)`.

    An argument that is a name of `names` (the caller's own parameters) is followed
    to the array it stands for; one of `shared` is that array; with `shared` None
    (the region's call) any name is, the region deciding whether it is shared.
    """
    out: dict[str, str] = {}
    for param, arg in zip(callee.params, call.args, strict=False):
        text = arg.strip()
        if not (param.pointers or param.dims) or not _NAME.fullmatch(text):
            continue
        if text in names:
            out[param.name] = names[text]
        elif shared is None or text in shared:
            out[param.name] = text
    return out


@dataclass(frozen=True, slots=True)
class _Scope:
    """Code whose writes are gathered: a function, or one task of it."""

    fn: Function
    task: Region | None
    names: Mapping[str, str]  # pointer parameters: the caller's array each names


def _writes_in(
    scope: _Scope, source: SourceFile, threadprivate: frozenset[str], seen: set[str]
) -> list[Ref]:
    """Shared writes of the scope and of what it calls, named as the caller names them.

    An element written through a pointer parameter is one of the argument's.
    """
    fn, task = scope.fn, scope.task
    if task is None:
        key = f"{fn.name}{sorted(scope.names.items())}"
        if key in seen:
            return []
        seen.add(key)
    statics = {v.name for v in fn.locals if is_static(fn, v, source.data)}
    statics -= threadprivate  # a `threadprivate` static: each thread's own
    own = {v.name for v in (*fn.locals, *fn.params)} - statics
    shared = ({g.name for g in source.globals} - threadprivate - own) | statics
    guarded = [
        c for c in source.constructs if first_word(c) in _EXCLUDING and _inside(fn, c)
    ]
    out: list[Ref] = []
    for ref in fn.refs:
        at = ref.span.start_byte
        if not ref.is_write or ref.atomic or ref.member or ref.deref:
            continue
        if task is not None and not contains(task, at):
            continue
        if any(contains(c, at) for c in guarded):
            continue
        if ref.name in shared:
            out.append(ref)
        elif ref.name in scope.names and ref.subscripts:
            out.append(replace(ref, name=scope.names[ref.name]))
    held = {**scope.names, **_pointing_into(fn, source, shared, scope.names)}
    for call, callee in _calls_in(fn, task, source):
        names = _arguments(call, callee, held, shared)
        out.extend(_writes_in(_Scope(callee, None, names), source, threadprivate, seen))
    return out


def _pointing_into(
    fn: Function, source: SourceFile, shared: set[str], names: Mapping[str, str]
) -> dict[str, str]:
    """Local pointers only ever set from one shared array: `blk = grid + b * BS`.

    Wherever such a pointer points, it is into that array (or the one a
    parameter `names` stands for), so a callee's write through it is one of its.
    The integers of the offset are no source of its address.
    """
    arrays = {g.name: g for g in source.globals}
    out: dict[str, str] = {}
    for var in fn.locals:
        if var.pointers != 1 or var.dims or var.address_taken:
            continue
        bases = [s for s in var.sources if _addressed(fn.lookup(s) or arrays.get(s))]
        if len(bases) != 1 or "()" in var.sources:
            continue
        if bases[0] in names:
            out[var.name] = names[bases[0]]
        elif bases[0] in shared:
            out[var.name] = bases[0]
    return out


def _addressed(var: Var | None) -> bool:
    """True for an array or a pointer: a name whose value is an address."""
    return var is None or bool(var.pointers or var.dims)


def _spawns(
    fn: Function, task: Region | None, source: SourceFile, seen: set[str]
) -> bool:
    """True if code of `fn` (inside `task` when given) may leave a task running.

    A task it does not wait for, here or in a function it calls.
    """
    if task is None:
        if fn.name in seen:
            return False
        seen.add(fn.name)
        if _open_tasks(fn, source):
            return True
    else:
        tasks = [t for t in _tasks_of(fn, source) if _nested(t, task)]
        if any(not _waited(fn, t, tasks, source, task) for t in tasks):
            return True
    calls = _calls_in(fn, task, source)
    return any(_spawns(c, None, source, seen) for _, c in calls)
