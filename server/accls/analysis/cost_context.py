"""The parallel context of a loop: whether its pragma would open a nested region.

A function that only ever runs inside parallel code (called from a parallel loop or
construct, directly or through functions that are themselves only called so) gets no
pragma of its own by default: it would open a nested region on every call.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accls.analysis.analyze import FileAnalysis
from accls.frontend import Loop, Span

__all__ = ["caller_lines", "nested_context", "unused_context"]

_CALL_DEPTH = 4  # callers followed upwards


def nested_context(analysis: FileAnalysis, loop: Loop) -> str:
    """Why a pragma on `loop` would open a nested region, or "".

    True when no other file can call its function (it is `static`, the file is a
    whole program: it defines `main`, or an index of every file of the program finds
    no call of it in the others) and every call of it in the file runs in
    parallel: inside a loop with a parallel pragma, inside a parallel construct, in
    a loop the analysis proves parallel (which gets its own pragma), or in a function
    that is itself only ever called so.
    """
    name = loop.function
    if name is None or name == "main":
        return ""
    lines = _parallel_callers(analysis, name, frozenset())
    if not lines:
        return ""
    where = ", ".join(str(n) for n in sorted(set(lines)))
    return (
        f"`{name}()` is only called from inside parallel code (line {where}): "
        "a pragma here opens a nested region on every call"
    )


def _parallel_callers(
    analysis: FileAnalysis, name: str, seen: frozenset[str]
) -> list[int]:
    """Lines of the parallel code around every call of `name`; [] if one is serial."""
    return caller_lines(analysis, name, seen, _parallel_line_around, _seen_whole)


def _seen_whole(analysis: FileAnalysis, name: str) -> bool:
    """True when this file shows every call of `name` (static, or the program's)."""
    source = analysis.source
    fn = source.function(name)
    whole_program = source.function("main") is not None
    return fn is not None and (
        fn.static or whole_program or _only_called_here(analysis, name)
    )


def caller_lines(
    analysis: FileAnalysis,
    name: str,
    seen: frozenset[str],
    around: Callable[[FileAnalysis, Span], int | None],
    admit: Callable[[FileAnalysis, str], bool],
) -> list[int]:
    """The lines `around` finds at every call of `name`; [] if one call has none.

    A call with nothing around it inside its caller counts through the caller's
    own calls, up to `_CALL_DEPTH` functions up. `admit` says whether the calls
    this file shows are all the function's calls.
    """
    source = analysis.source
    fn = source.function(name)
    if fn is None or name == "main" or name in seen or len(seen) > _CALL_DEPTH:
        return []
    if not admit(analysis, name):
        return []
    lines: list[int] = []
    for caller in source.functions:
        if caller.name == name:
            continue
        for call in caller.call_sites:
            if call.name != name:
                continue
            line = around(analysis, call.span)
            if line is None:
                outer = caller_lines(
                    analysis, caller.name, seen | {name}, around, admit
                )
                if not outer:
                    return []
                line = min(outer)
            lines.append(line)
    return lines


def _only_called_here(analysis: FileAnalysis, name: str) -> bool:
    """True when an index of the whole program finds no call of `name` elsewhere."""
    program = analysis.program
    if program is None or not program.whole or not program.complete:
        return False
    return name not in program.called


def _parallel_line_around(analysis: FileAnalysis, span: Span) -> int | None:
    """The line of a parallel construct or parallel loop around `span`, if any."""
    source = analysis.source
    for construct in source.constructs:
        words = construct.directive.name.split()
        inside = construct.span.start_byte <= span.start_byte < construct.span.end_byte
        if inside and words[:1] == ["parallel"]:
            return construct.span.line
    for outer in source.loops():
        if not outer.span.start_byte <= span.start_byte < outer.span.end_byte:
            continue
        if any(p.dialect == "omp" and "for" in p.name.split() for p in outer.pragmas):
            return outer.line
        if analysis.of(outer).parallel:
            return outer.line
    return None


def unused_context(analysis: FileAnalysis, loop: Loop) -> str:
    """Why `loop` never runs: its function is called nowhere in the program, or "".

    The file must hold the whole program (it defines `main`), an index of the
    other files must find no call either, and no text of the file beyond the
    definition may name the function (a prototype, a function pointer).
    """
    source = analysis.source
    name = loop.function
    fn = source.function(name) if name is not None else None
    if name is None or fn is None or name == "main" or source.function("main") is None:
        return ""
    program = analysis.program
    if program is not None and (not program.complete or name in program.called):
        return ""
    # A method or constructor is called by its last name (`Domain d(n)`, `d.f()`).
    plain = name.rsplit("::", 1)[-1]
    pattern = re.compile(rb"\b" + re.escape(plain.encode()) + rb"\b")
    outside = source.data[: fn.span.start_byte] + source.data[fn.span.end_byte :]
    if pattern.search(outside) or fn.span.end_byte <= fn.span.start_byte:
        return ""
    return f"unused: nothing in the program calls `{name}()`, so the loop never runs"
