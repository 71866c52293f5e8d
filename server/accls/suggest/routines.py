"""Device versions of the user functions an offloaded loop calls.

A function of this file called inside an offloaded loop must be compiled for
the device too: OpenACC marks it `#pragma acc routine seq`, OpenMP wraps it in
`#pragma omp declare target` ... `#pragma omp end declare target`, at its
definition and at its prototypes (the call must see the mark). A function
that cannot run on the device (it does I/O, recurses, calls a function with
no device version, or uses a global the device does not hold) gets a reason
instead, and the loop is not offloaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from accls.analysis import PURE_FUNCTIONS, FileAnalysis, summarize
from accls.analysis.own_objects import own_object
from accls.analysis.row_arguments import is_row
from accls.frontend import (
    Call,
    Effect,
    Function,
    Loop,
    SourceFile,
    Var,
    library_function,
)
from accls.suggest.callee_arrays import callee_mapped_names
from accls.suggest.header_routines import header_function, header_routine_reason
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.routine_privates import iteration_locals
from accls.suggest.routine_scope import routine_scope_blocker

__all__ = ["RoutineEdit", "RoutineIndex", "routine_edits", "routine_functions"]


@dataclass(frozen=True, slots=True)
class RoutineEdit:
    """A directive above a function's definition or prototype (and its end)."""

    function: str
    start: int  # byte offset of the declaration's first character
    pragma: Pragma
    end: int | None = None  # OpenMP: where `end declare target` goes
    prototype: bool = False
    line: int = 0  # 1-based line of `start`


_END = Pragma(Dialect.OPENMP, "end declare target")
_HOST_ONLY = {
    Effect.IO: "does I/O",
    Effect.MEMORY: "calls C library code that has no device version",
    Effect.ALLOC: "allocates memory",
    Effect.FREE: "frees memory",
    Effect.THREAD: "uses threads",
    Effect.HIDDEN: "touches hidden library state",
}


def end_pragma() -> Pragma:
    """The `#pragma omp end declare target` that closes a wrapped declaration."""
    return _END


def _marked(fn: Function, dialect: Dialect) -> bool:
    return any(
        p.dialect == dialect.sentinel
        and (p.name.startswith("routine") or "declare target" in p.name)
        for p in fn.pragmas
    )


def _blocker(fn: Function, analysis: FileAnalysis, dialect: Dialect) -> str | None:
    """Why `fn` itself cannot run on the device, or None."""
    source = analysis.source
    name = f"`{fn.name}()`"
    if (scope := routine_scope_blocker(fn, source, dialect)) is not None:
        return scope
    if any(v.static for v in fn.locals):
        return f"{name} keeps a `static` local, which a device routine cannot hold"
    own = {v.name for v in (*fn.locals, *fn.params)}
    for ref in fn.refs:
        if ref.name in source.global_names and ref.name not in own:
            mark = "acc declare" if dialect is Dialect.OPENACC else "omp declare target"
            return (
                f"{name} uses the global `{ref.name}`, which is on the device only "
                f"with `#pragma {mark}`"
            )
    for call in fn.call_sites:
        if call.name == fn.name:
            return f"{name} calls itself: a recursive function cannot be a routine"
        if source.function(call.name) or header_function(source, call.name):
            continue  # checked where `routine_edits` reaches it
        found = analysis.program.only(call.name) if analysis.program else None
        if found is not None:
            if dialect.sentinel not in found.device:
                return (
                    f"{name} calls `{call.name}()`, defined in {found.place} without "
                    "a device version"
                )
            continue
        known = library_function(call.name)
        if known is None:
            return f"{name} calls `{call.name}()`, which has no known device version"
        if known.effect in _HOST_ONLY:
            return f"{name} calls `{call.name}()`: it {_HOST_ONLY[known.effect]}"
    return None


def _statement_start(code: str, at: int) -> int:
    """Start of the top-level declaration that holds offset `at`."""
    start = max(code.rfind(ch, 0, at) for ch in ";{}") + 1
    # Skip the blank and preprocessor lines between the last statement and it.
    for line in code[start:at].splitlines(keepends=True):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        start += len(line)
    while start < at and code[start].isspace():
        start += 1
    return start


def _between_functions(source: SourceFile) -> list[tuple[int, int]]:
    """(start, end) character offsets of the text outside every function body."""
    code = source.code
    ascii_only = len(source.data) == len(code)

    def char(at: int) -> int:
        if ascii_only:
            return at
        return len(source.data[:at].decode("utf-8", errors="surrogateescape"))

    pieces: list[tuple[int, int]] = []
    last = 0
    for fn in sorted(source.functions, key=lambda f: f.span.start_byte):
        start = char(fn.span.start_byte)
        if start > last:
            pieces.append((last, start))
        last = max(last, char(fn.span.end_byte))
    pieces.append((last, len(code)))
    return pieces


def _prototypes(
    source: SourceFile, fn: Function, outside: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """(start, end) byte offsets of the file's prototypes of `fn`."""
    code = source.code
    ascii_only = len(source.data) == len(code)

    def byte(at: int) -> int:
        return at if ascii_only else len(code[:at].encode("utf-8", "surrogateescape"))

    pattern = re.compile(r"\b" + re.escape(fn.name) + r"\s*\([^;{}]*\)\s*;")
    found: list[tuple[int, int]] = []
    for low, high in outside:
        for match in pattern.finditer(code, low, high):
            start = _statement_start(code, match.start())
            head = code[start : match.start()]
            if "=" in head or "(" in head or not head.strip():
                continue  # `x = f(y);` is not a prototype, nor a bare call
            found.append((byte(start), byte(match.end())))
    return found


class RoutineIndex:
    """The prototypes of a file's functions, found once for all its loops."""

    __slots__ = ("_blockers", "_outside", "_prototypes", "source")

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self._outside: list[tuple[int, int]] | None = None
        self._prototypes: dict[str, list[tuple[int, int]]] = {}
        self._blockers: dict[tuple[str, Dialect], str | None] = {}

    def blocker(
        self, fn: Function, analysis: FileAnalysis, dialect: Dialect
    ) -> str | None:
        """Why `fn` cannot run on the device (see `_blocker`), found once."""
        key = (fn.name, dialect)
        if key not in self._blockers:
            self._blockers[key] = _blocker(fn, analysis, dialect)
        return self._blockers[key]

    def prototypes(self, fn: Function) -> list[tuple[int, int]]:
        """(start, end) byte offsets of `fn`'s prototypes in the file."""
        found = self._prototypes.get(fn.name)
        if found is None:
            if self._outside is None:
                self._outside = _between_functions(self.source)
            found = _prototypes(self.source, fn, self._outside)
            self._prototypes[fn.name] = found
        return found


def _edits(fn: Function, index: RoutineIndex, dialect: Dialect) -> list[RoutineEdit]:
    source = index.source
    places = [(s, e, True) for s, e in index.prototypes(fn)]
    places.append((fn.span.start_byte, fn.span.end_byte, False))
    acc = dialect is Dialect.OPENACC
    pragma = Pragma(dialect, "routine seq" if acc else "declare target")
    return [
        RoutineEdit(
            fn.name,
            start,
            pragma,
            None if acc else end,
            proto,
            source.data.count(b"\n", 0, start) + 1,
        )
        for start, end, proto in places
    ]


def _reason(name: str, acc: bool, protos: int) -> str:
    """Why the loop's callee `name` gets its mark, and where."""
    mark = "acc routine seq" if acc else "omp declare target"
    where = " at its definition" + (
        f" and {protos} prototype{'s' if protos > 1 else ''}" if protos else ""
    )
    level = (
        "`seq`: its own loops stay sequential"
        if acc
        else "its own loops run sequentially in each thread"
    )
    return (
        f"`#pragma {mark}` on `{name}()`{where}: the loop calls it on the "
        f"device, one call per iteration ({level})"
    )


def _memory_params(fn: Function) -> dict[int, str]:
    """Position -> name of the parameters whose memory `fn` reads or writes."""
    params = {v.name: k for k, v in enumerate(fn.params)}
    # Every pointer, even one only passed on: its callee may dereference it.
    used = {v.name for v in fn.params if v.pointers or v.dims or v.unknown_shape}
    used |= {
        ref.name
        for ref in fn.refs
        if ref.name in params and (ref.subscripts or ref.deref)
    }
    return {params[name]: name for name in sorted(used, key=params.__getitem__)}


_ADDRESS = re.compile(r"^&\s*([A-Za-z_]\w*)$")
_NAME = re.compile(r"^[A-Za-z_]\w*$")


def _private_argument(text: str, private: dict[str, Var]) -> bool:
    """Whether an argument points to memory private to one iteration: `&x`, `buf`."""
    text = text.strip()
    if (match := _ADDRESS.match(text)) is not None:
        var = private.get(match.group(1))
        return var is not None and not var.static
    var = private.get(text) if _NAME.match(text) else None
    return var is not None and not var.static and (bool(var.dims) or var.pointers > 0)


def _moved_rows(call: Call, loop: Loop, analysis: FileAnalysis) -> frozenset[str]:
    """Arguments that are rows the loop's own references move.

    The analysis records a row a callee writes as the loop's own access of it
    (`zero3(f[i])`), so the data clauses, written from those references, move
    it. A row a callee only reads (`rowsum(a[i], m)`, through no parameter it
    writes) is the loop's read of the row: when the row is itself an array's
    storage (`double a[N][M]`, not a pointer read from memory), C keeps the
    callee's reads within it, and the data clauses copy it in.
    """
    source = analysis.source
    inside = [
        ref
        for ref in loop.refs
        if ref.subscripts
        and call.span.start_byte <= ref.span.start_byte < call.span.end_byte
    ]
    moved = {"".join(ref.render().split()) for ref in inside if ref.is_write}
    summary = summarize(call.name, source, PURE_FUNCTIONS, None, analysis.program)
    if summary is None:
        return frozenset(moved)
    written = {
        "".join(call.args[k].split()) for k in summary.writes if k < len(call.args)
    }
    for ref in inside:
        text = "".join(ref.render().split())
        if (
            ref.is_read
            and not ref.deref
            and not ref.escapes
            and text not in written
            and not any(s.indirect for s in ref.subscripts)
            and is_row(ref, loop, source)
        ):
            moved.add(text)
    return frozenset(moved)


def _argument_blocker(
    call: Call, fn: Function, private: dict[str, Var], rows: frozenset[str]
) -> str | None:
    """Why a call hands `fn` memory that the loop's data clauses may not move."""
    for k, param in _memory_params(fn).items():
        arg = call.args[k] if k < len(call.args) else "?"
        if "".join(arg.split()) in rows:
            continue
        if not _private_argument(arg, private):
            return (
                f"`{fn.name}()` reaches memory through `{param}` (given `{arg}` at "
                f"line {call.span.line}), which the loop's data clauses do not "
                "move: map it with a data region first"
            )
    return None


def routine_edits(
    loop: Loop, analysis: FileAnalysis, dialect: Dialect, index: RoutineIndex
) -> tuple[tuple[RoutineEdit, ...], tuple[str, ...], str | None]:
    """The routine directives `loop` needs offloaded, their reasons, or a blocker.

    A pointer a callee dereferences must point to memory of one iteration (a
    local of the loop body, or of a routine that passes it on): data clauses
    are written from the loop's own references, not from its callees'.
    """
    source = analysis.source
    edits: list[RoutineEdit] = []
    reasons: list[str] = []
    seen: set[str] = set()
    body = iteration_locals(loop, analysis)
    todo = [(c, loop.span.start_byte, body) for c in loop.calls]
    while todo:
        call, called_at, private = todo.pop(0)
        name = call.name
        fn = source.function(name)
        header = fn is None and (fn := header_function(source, name)) is not None
        if fn is None:
            continue
        if name == loop.function:
            return (), (), f"offloaded, `{name}()` would call itself on the device"
        if _marked(fn, dialect):
            continue
        top = called_at == loop.span.start_byte
        rows = _moved_rows(call, loop, analysis) if top else frozenset()
        rows |= callee_mapped_names(call, loop, analysis) if top else frozenset()
        if top and own_object(call, 0, loop, source):
            rows |= {"".join(call.args[0].split())}  # the iteration's own object
        blocker = _argument_blocker(call, fn, private, rows)
        if blocker is not None:
            return (), (), f"offloaded, {blocker}"
        if name in seen:
            continue
        seen.add(name)
        blocker = index.blocker(fn, analysis, dialect)
        if blocker is not None:
            return (), (), f"offloaded, {blocker}"
        # A header's function is compiled with the file but not edited.
        found = [] if header else _edits(fn, index, dialect)
        # OpenACC wants the mark before the first use; OpenMP marks a function
        # defined later in the file implicitly, from its `declare target`.
        acc = dialect is Dialect.OPENACC
        if header:
            reasons.append(header_routine_reason(source, fn, dialect))
        elif acc and not any(e.start < called_at for e in found):
            why = (
                f"`{name}()` is declared only after its call, with no prototype in "
                "this file to mark `acc routine` before that use (its header's "
                "prototype needs the mark)"
            )
            return (), (), why
        else:
            reasons.append(_reason(name, acc, sum(1 for e in found if e.prototype)))
        edits.extend(found)
        # Its locals are private; its pointer parameters were checked at this call.
        own = {v.name: v for v in fn.locals}
        own.update({v.name: v for v in fn.params if v.pointers or v.dims})
        todo.extend((c, fn.span.start_byte, own) for c in fn.call_sites)
    return tuple(edits), tuple(reasons), None


def routine_functions(
    marks: Iterable[tuple[Dialect, Iterable[RoutineEdit]]],
) -> dict[Dialect, frozenset[str]]:
    """Per dialect, the functions the inserted pragmas mark as device routines.

    A marked function runs inside one iteration of its caller's kernel: a
    compute construct, or a level `loop`, in its body would be nested
    parallelism, which `routine seq` (and a `declare target` function called
    from a target region) forbids. Its own loops keep no pragma.
    """
    found: dict[Dialect, set[str]] = {}
    for dialect, edits in marks:
        found.setdefault(dialect, set()).update(e.function for e in edits)
    return {d: frozenset(names) for d, names in found.items()}
