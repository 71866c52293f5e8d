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
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.frontend import (
    Call,
    Effect,
    Function,
    Loop,
    SourceFile,
    Var,
    library_function,
)
from accls.suggest.pragma import Dialect, Pragma

__all__ = ["RoutineEdit", "routine_edits"]


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
        if source.function(call.name) is not None:
            continue
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


_CODE_START = re.compile(r"[;}{]|^[ \t]*#[^\n]*$", re.MULTILINE)


def _statement_start(code: str, at: int) -> int:
    """Start of the top-level declaration that holds offset `at`."""
    start = 0
    for match in _CODE_START.finditer(code, 0, at):
        start = match.end()
    while start < at and code[start].isspace():
        start += 1
    return start


def _top_level(code: str) -> list[bool]:
    """For each character, whether it lies outside every brace."""
    depth = 0
    out = [True] * len(code)
    for k, ch in enumerate(code):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        out[k] = depth == 0
    return out


def _prototypes(source: SourceFile, fn: Function) -> list[tuple[int, int]]:
    """(start, end) byte offsets of the file's prototypes of `fn`."""
    code = source.code
    ascii_only = len(source.data) == len(code)

    def byte(at: int) -> int:
        return at if ascii_only else len(code[:at].encode("utf-8", "surrogateescape"))

    pattern = re.compile(r"\b" + re.escape(fn.name) + r"\s*\([^;{}]*\)\s*;")
    found: list[tuple[int, int]] = []
    top: list[bool] | None = None
    for match in pattern.finditer(code):
        if fn.span.start_byte <= byte(match.start()) < fn.span.end_byte:
            continue
        top = top or _top_level(code)
        if not top[match.start()]:
            continue  # a call inside some function body
        start = _statement_start(code, match.start())
        head = code[start : match.start()]
        if "=" in head or "(" in head or not head.strip():
            continue  # `x = f(y);` at top level is not a prototype; a bare call neither
        found.append((byte(start), byte(match.end())))
    return found


def _edits(fn: Function, source: SourceFile, dialect: Dialect) -> list[RoutineEdit]:
    places = [(s, e, True) for s, e in _prototypes(source, fn)]
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


def _argument_blocker(call: Call, fn: Function, private: dict[str, Var]) -> str | None:
    """Why a call hands `fn` memory that the loop's data clauses may not move."""
    for k, param in _memory_params(fn).items():
        arg = call.args[k] if k < len(call.args) else "?"
        if not _private_argument(arg, private):
            return (
                f"`{fn.name}()` reaches memory through `{param}` (given `{arg}` at "
                f"line {call.span.line}), which the loop's data clauses do not "
                "move: map it with a data region first"
            )
    return None


def routine_edits(
    loop: Loop, analysis: FileAnalysis, dialect: Dialect
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
    body = {v.name: v for v in loop.locals}
    todo = [(c, loop.span.start_byte, body) for c in loop.calls]
    while todo:
        call, called_at, private = todo.pop(0)
        name = call.name
        fn = source.function(name)
        if fn is None:
            continue
        if name == loop.function:
            return (), (), f"offloaded, `{name}()` would call itself on the device"
        if _marked(fn, dialect):
            continue
        blocker = _argument_blocker(call, fn, private)
        if blocker is not None:
            return (), (), f"offloaded, {blocker}"
        if name in seen:
            continue
        seen.add(name)
        blocker = _blocker(fn, analysis, dialect)
        if blocker is not None:
            return (), (), f"offloaded, {blocker}"
        found = _edits(fn, source, dialect)
        # OpenACC wants the mark before the first use; OpenMP marks a function
        # defined later in the file implicitly, from its `declare target`.
        acc = dialect is Dialect.OPENACC
        if acc and not any(e.start < called_at for e in found):
            why = (
                f"`{name}()` is declared only after its call, with no prototype in "
                "this file to mark `acc routine` before that use (its header's "
                "prototype needs the mark)"
            )
            return (), (), why
        edits.extend(found)
        mark = "acc routine seq" if acc else "omp declare target"
        protos = sum(1 for e in found if e.prototype)
        where = " at its definition" + (
            f" and {protos} prototype{'s' if protos > 1 else ''}" if protos else ""
        )
        level = (
            "`seq`: its own loops stay sequential"
            if acc
            else ("its own loops run sequentially in each thread")
        )
        reasons.append(
            f"`#pragma {mark}` on `{name}()`{where}: the loop calls it on the "
            f"device, one call per iteration ({level})"
        )
        # Its locals are private; its pointer parameters were checked at this call.
        own = {v.name: v for v in fn.locals}
        own.update({v.name: v for v in fn.params if v.pointers or v.dims})
        todo.extend((c, fn.span.start_byte, own) for c in fn.call_sites)
    return tuple(edits), tuple(reasons), None
