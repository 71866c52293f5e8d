"""Loops that are not `Loop`s: `while` and `do ... while` statements of C.

Only `for` loops are modelled as loops (only they can take a worksharing pragma),
but a `while` or a `do ... while` runs its body many times all the same: a time
loop `do { <kernels> } while (++it < steps);` repeats the kernels, and the code in
its body does not run once. The cost rules that ask "does this run once?" or "is
there a loop that repeats the kernels?" ask these questions here too.
"""

from __future__ import annotations

import re

from accls.frontend import Branch, SourceFile

__all__ = ["in_sequential_loop", "repeating_do_loops", "sequential_line"]

_WORD = re.compile(r"[A-Za-z_]\w*")


def _inside(start: int, body: Branch) -> bool:
    return body.span.start_byte <= start < body.span.end_byte


def _bodies(source: SourceFile, function: str | None) -> list[Branch]:
    """The bodies of the `while` and `do` loops of `function`."""
    fn = source.function(function)
    if fn is None:
        return []
    return [
        b
        for b in source.sequential_bodies
        if fn.span.start_byte <= b.span.start_byte < fn.span.end_byte
    ]


def in_sequential_loop(source: SourceFile, function: str | None, start: int) -> bool:
    """True when byte `start` of `function` lies in the body of a `while` or `do`."""
    return any(_inside(start, b) for b in _bodies(source, function))


def _holds_loops(source: SourceFile, function: str, body: Branch) -> bool:
    """True when `body` holds a `for` loop, or calls a file's function that does."""
    if any(
        n.function == function and _inside(n.span.start_byte, body)
        for n in source.nests
    ):
        return True
    fn = source.function(function)
    called = {
        c.name
        for c in (fn.call_sites if fn is not None else ())
        if _inside(c.span.start_byte, body) and c.name != function
    }
    return any(n.function in called for n in source.nests)


def _indexes_data(source: SourceFile, function: str, body: Branch) -> bool:
    """True when a word of the loop's condition indexes data or feeds a call in it."""
    names = set(_WORD.findall(body.condition))
    fn = source.function(function)
    if fn is None:
        return True
    for ref in fn.refs:
        if _inside(ref.span.start_byte, body) and any(
            names & set(_WORD.findall(s.text)) for s in ref.subscripts
        ):
            return True
    return any(
        _inside(c.span.start_byte, body)
        and names & set(_WORD.findall(" ".join(c.args)))
        for c in fn.call_sites
    )


def repeating_do_loops(source: SourceFile, function: str | None) -> list[Branch]:
    """The bodies of the `do ... while` loops of `function` that repeat kernels.

    A time loop: its body runs at least once, holds loops (nested, or in a function
    of the file it calls), and no word of its condition indexes data in it (a step
    or iteration count, a convergence flag), like `cost_once.repeats` for `for`.
    """
    if function is None:
        return []
    return [
        b
        for b in _bodies(source, function)
        if b.statement == "do"
        and _holds_loops(source, function, b)
        and not _indexes_data(source, function, b)
    ]


def sequential_line(source: SourceFile, body: Branch) -> int:
    """The 1-based line of the `do` or `while` keyword of the loop with `body`."""
    keyword = b"do" if body.statement == "do" else b"while"
    at = source.data.rfind(keyword, 0, body.span.start_byte)
    at = at if at >= 0 else body.span.start_byte
    return source.data.count(b"\n", 0, at) + 1
