"""Why a call's effects are unknown, in words: recursion, pointers, jumps, `va_arg`.

A call the analysis cannot summarise is refused either way; these say which
fact is missing, so the reason is clear rather than "unknown side effects".
"""

from __future__ import annotations

import re

from accls.analysis.integer_addresses import integer_addresses
from accls.analysis.model import Obstacle, ObstacleCode
from accls.frontend import Call, Function, Loop, SourceFile, library_function
from accls.frontend.cpp_reasons import cpp_call_reason
from accls.frontend.nested_functions import NESTED_CALL

__all__ = ["ambiguous_function", "duplicate_definitions", "unknown_call_reason"]

_NAME = re.compile(r"[A-Za-z_]\w*")

JUMPS = frozenset(
    {
        "setjmp",
        "_setjmp",
        "sigsetjmp",
        "__sigsetjmp",
        "longjmp",
        "_longjmp",
        "siglongjmp",
        "__builtin_setjmp",
        "__builtin_longjmp",
    }
)
"""Non-local jumps: control may leave (or re-enter) the loop from any iteration."""

VARARGS = frozenset(
    {
        "va_start",
        "va_arg",
        "va_end",
        "va_copy",
        "__builtin_va_start",
        "__builtin_va_arg",
        "__builtin_va_end",
        "__builtin_va_copy",
    }
)
"""Reading a variadic function's arguments through a `va_list`."""


def _definition_lines(name: str, source: SourceFile) -> str | None:
    """`lines 3, 5` when the file defines `name` more than once, else None."""
    lines = [f.span.line for f in source.functions if f.name == name]
    if len(lines) < 2:
        return None
    return "lines " + ", ".join(str(n) for n in lines)


def _unknown_branches(source: SourceFile) -> str:
    why = f" ({source.preprocessor_problem})" if source.preprocessor_problem else ""
    return f"the build's #if branches are unknown here{why}"


def duplicate_definitions(name: str, source: SourceFile) -> str | None:
    """Why a function defined more than once (one per #if branch) is not summarised."""
    lines = _definition_lines(name, source)
    if lines is None:
        return None
    if "::" in name:  # a class's methods: overloads, or #if branches
        return (
            f"which has several definitions ({lines}) a call of that many arguments "
            "may run (overloads by parameter type, which the analysis does not "
            "compare, or #if branches): which one runs is unknown"
        )
    return (
        f"which is defined more than once ({lines}) and {_unknown_branches(source)}: "
        "which definition runs is unknown"
    )


def ambiguous_function(loop: Loop, source: SourceFile) -> tuple[Obstacle, ...]:
    """A loop in a function defined more than once: its declarations are unknown."""
    lines = _definition_lines(loop.function or "", source)
    if lines is None:
        return ()
    return (
        Obstacle(
            code=ObstacleCode.AMBIGUOUS,
            line=loop.line,
            variable=loop.function,
            message=f"`{loop.function}()` is defined more than once ({lines}) and "
            f"{_unknown_branches(source)}: which definition's declarations apply is "
            "unknown; pass the build's -D flags or a compile database",
        ),
    )


def _cycle(name: str, source: SourceFile) -> tuple[str, ...] | None:
    """A call path from `name` back to itself through functions of the file."""
    stack: list[tuple[str, tuple[str, ...]]] = [(name, (name,))]
    seen: set[str] = set()
    while stack:
        current, path = stack.pop()
        fn = source.function(current)
        if fn is None:
            continue
        for callee in fn.calls:
            if callee == name:
                return (*path, name)
            if callee not in seen:
                seen.add(callee)
                stack.append((callee, (*path, callee)))
    return None


def _unknown_callee(name: str, source: SourceFile, pure: frozenset[str]) -> str | None:
    """The first function reached from `name` that nothing here describes."""
    stack, seen = [name], {name}
    while stack:
        fn = source.function(stack.pop())
        if fn is None:
            continue
        for callee in fn.calls:
            if callee in seen or callee in pure:
                continue
            seen.add(callee)
            if _definition_lines(callee, source) is not None:
                return callee  # which of its definitions runs is unknown
            if source.function(callee) is not None:
                stack.append(callee)
            elif library_function(callee) is None:
                return callee
    return None


def _through_pointer(name: str, fn: Function | None, source: SourceFile) -> bool:
    """Whether the call goes through a pointer: a variable, or an expression."""
    if not _NAME.fullmatch(name):
        return True  # `table[i % 2](x)`, `s->op(x)`, `(*f)(x)`
    if fn is not None and fn.lookup(name) is not None:
        return True
    if any(g.name == name for g in source.globals):
        return True
    # `double (*g)(double)` declares no variable the front end records.
    declarator = re.compile(rf"\(\s*\*\s*{re.escape(name)}\s*\)\s*\(")
    return declarator.search(source.code) is not None


def unknown_call_reason(
    call: Call, loop: Loop, source: SourceFile, pure: frozenset[str]
) -> str | None:
    """Why the effects of `call` are unknown, when a specific fact says so."""
    name = call.name
    if name in JUMPS:
        return (
            "a non-local jump (setjmp/longjmp): control may leave or re-enter the "
            "loop from any iteration"
        )
    if name in VARARGS:
        return (
            "which reads variadic arguments through a `va_list`: accls does not "
            "analyse those accesses"
        )
    unreduced = dict(source.unreduced).get(name)
    if unreduced is not None:
        return unreduced
    cpp = cpp_call_reason(name)
    if cpp is not None:
        return cpp
    if name.startswith(NESTED_CALL):
        return (
            "a GNU nested function: its body is not analysed, and it may write "
            "the enclosing function's variables"
        )
    if _through_pointer(name, source.function(loop.function), source):
        return (
            "a call through a function pointer: the function it points to is "
            "unknown here"
        )
    if source.function(name) is None:
        return None
    defined = source.function(name)
    others = integer_addresses(defined, source).others if defined else ()
    if others:
        return (
            f"which turns the integer `{others[0]}` into a pointer: the memory it "
            "reaches is unknown"
        )
    cycle = _cycle(name, source)
    if cycle is not None:
        path = " -> ".join(f"`{n}()`" for n in cycle)
        return f"which is recursive ({path}): recursive functions are not summarised"
    callee = _unknown_callee(name, source, pure)
    if callee is None:
        return None
    if callee in JUMPS:
        return f"which calls `{callee}()`, a non-local jump"
    if callee in VARARGS:
        return (
            f"which reads variadic arguments (`{callee}`): accls does not analyse "
            "`va_list` accesses"
        )
    twice = _definition_lines(callee, source)
    if twice is not None:
        return (
            f"which calls `{callee}()`, defined more than once ({twice}: overloads "
            "or #if branches), and not every definition has a summary: whichever "
            "runs must be known to write and read nothing shared"
        )
    return f"which calls `{callee}()`, whose side effects are unknown"
