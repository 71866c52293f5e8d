"""Bounds an earlier loop shows are not an unsigned type's end.

`for (v = a; v <= n; v++)` with an unsigned `v` never ends when `n` is the
type's maximum: `v <= MAX` always holds, and `v++` wraps from MAX to 0. A later
loop of the same block, `for (i = 0; i <= n; i++)`, which wraps only when `n`
is that maximum, is then reached only with `n` below it: control gets there
only once the earlier loop has ended. Falling loops alike: `v >= k; v--` never
ends with `k == 0`. This holds when the earlier loop cannot be left but by
ending (no `break`, no `goto` in the function, no `try`, `setjmp` or `cancel`
in it: a `return`, `exit()`, throw or `longjmp` leaves the function or the
program, and the later loop is not reached), when nothing can
reach the later loop without passing the earlier one (statements of one block,
no `case` label or `section` between them), when the earlier loop is the
serial loop it reads as (no pragma shares it out), and when `n` keeps its
value from the one to the other (a local that no address or reference reaches,
written by no statement between them).
"""

from __future__ import annotations

import re

from accls.analysis.narrow_counters import counter_decl
from accls.frontend import (
    AccessKind,
    ExitKind,
    Function,
    Loop,
    SourceFile,
    Span,
    Var,
)

__all__ = ["bound_range_from_endless_loop"]

# What can reach a statement without passing the ones before it, or leave a
# loop and go on in the function: labels of a switch, sections, jumps.
_ENTRIES = re.compile(r"\bcase\b|\bdefault\s*:|\bsection\b")
_CATCHES = re.compile(r"\btry\b|\bcatch\b|\bsetjmp\b|\bcancel\b")


def _text(source: SourceFile, start: int, end: int) -> str:
    return source.data[start:end].decode("utf-8", errors="replace")


def _within(span: Span, start: int, end: int) -> bool:
    return start <= span.start_byte < end


def _aliased(name: str, fn: Function, source: SourceFile) -> bool:
    """True when `&name`, or a C++ reference bound to it, may write it unseen."""
    code = _text(source, fn.span.start_byte, fn.span.end_byte)
    word = re.escape(name)
    return re.search(rf"(?<!&)&\s*{word}\b|&\s*\w+\s*=\s*{word}\b", code) is not None


def _kept(name: str, fn: Function, source: SourceFile, start: int, end: int) -> bool:
    """True when the local `name` has one value from byte `start` to `end`."""
    decl = fn.lookup(name)
    if (
        decl is None
        or fn.declarations(name) != 1
        or decl.scope == "global"
        or decl.static
        or decl.volatile
        or decl.pointers
        or decl.dims
    ):
        return False
    if _aliased(name, fn, source):
        return False
    for ref in fn.refs:
        if ref.name != name:
            continue
        if ref.escapes:
            return False
        if ref.kind is not AccessKind.READ and _within(ref.span, start, end):
            return False
    # A C++ callee may take it by reference: no call between may be given it.
    return not any(
        name in call.args for call in fn.call_sites if _within(call.span, start, end)
    )


def _endless_when(
    earlier: Loop, base: str, fn: Function, source: SourceFile
) -> int | None:
    """The bound's value that keeps `earlier` going for ever, None when none does."""
    if (
        earlier.pragmas
        or earlier.limits
        or earlier.range_for is not None
        or earlier.unbounded
        or earlier.var is None
        or any(e.kind in (ExitKind.BREAK, ExitKind.GOTO) for e in earlier.exits)
    ):
        return None
    decl = counter_decl(earlier, fn, source)
    if decl is None or decl.pointers or decl.dims or _base_of(decl, source) != base:
        return None  # another type: it may end where the later loop wraps
    if _aliased(earlier.var, fn, source):
        return None  # a write through an alias may end the loop
    body = (earlier.body.start_byte, earlier.body.end_byte)
    for ref in fn.refs:
        if (
            ref.name == earlier.var
            and (ref.escapes or ref.kind is not AccessKind.READ)
            and _within(ref.span, *body)
        ):
            return None  # the body moves the variable: it may end the loop
    if earlier.cond_op == "<=" and earlier.step == 1:
        return -1  # the type's maximum
    if earlier.cond_op == ">=" and earlier.step == -1:
        return 0
    return None


def _base_of(decl: Var, source: SourceFile) -> str:
    return (source.types.scalar_base(decl.type) or decl.type).removeprefix("std::")


def bound_range_from_endless_loop(
    loop: Loop, decl: Var, fn: Function | None, source: SourceFile, top: int
) -> tuple[int, int] | None:
    """The range an earlier endless-at-the-end loop leaves the bound, None if none.

    `(0, top - 1)` when an earlier `v <= n; v++` of the same unsigned type runs
    for ever with `n == top`, `(1, top)` when an earlier `v >= n; v--` does with
    `n == 0`.
    """
    name = loop.upper_text.strip()
    if fn is None or loop.block < 0 or not name.isidentifier():
        return None
    if any(e.kind is ExitKind.GOTO for e in fn.exits):
        return None  # a label may be jumped to from anywhere
    code = _text(source, fn.span.start_byte, fn.span.end_byte)
    if _CATCHES.search(code):
        return None
    base = _base_of(decl, source)
    for earlier in source.loops():
        if (
            earlier.function != loop.function
            or earlier.block != loop.block
            or earlier.span.end_byte > loop.span.start_byte
            or earlier.upper_text.strip() != name
        ):
            continue
        between = _text(source, earlier.span.end_byte, loop.span.start_byte)
        if _ENTRIES.search(between):
            continue
        if not _kept(name, fn, source, earlier.span.start_byte, loop.span.end_byte):
            continue
        endless = _endless_when(earlier, base, fn, source)
        if endless == -1:
            return 0, top - 1
        if endless == 0:
            return 1, top
    return None
