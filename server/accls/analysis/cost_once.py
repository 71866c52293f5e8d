"""One-off passes: a loop that runs once beside a loop that repeats the kernels.

`for (i...) image[i] = exp(image[i] / 255); for (iter...) { <parallel kernels> }
for (i...) image[i] = log(image[i]) * 255;`: the time loop runs its kernels `iter`
times, while the scaling before it and the checksum after it run once, over the
same data or less. Sharing out a one-off pass saves a fraction of one kernel's
time out of many; experts leave such passes (scaling, checksums, verification)
serial and spend the pragma on the kernels. Only maps count (loops that read and
write memory and sum nothing): fills that read no memory first touch the arrays the
kernels share out (cost_light decides those), and experts share out the checksums
and norms after a time loop about as often as they leave them serial.

The rule holds only with static evidence of the repetition: the pass and the loop
that repeats sit at the top level of the same function; the repeating loop is not
parallel itself, its variable indexes no data (a time step, a repeat count), and it
holds a loop (in its body, or in a function of the file it calls), which the analysis
need not prove parallel.
At the model's sizes the repeating loop holds SHARE times the pass's work or more.
A pass may also be the loop of a function that runs once (every call of it outside
any loop, `while` and `do` included, up to `main`) beside such a loop elsewhere: a
particle setup called by the initialisation before the time steps. A pass before
the repeating loop that first touches an array its function made (a sparse matrix
built row by row into fresh memory) is construction, which experts share out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accls.analysis.analyze import FileAnalysis
from accls.analysis.model import ScalarClass
from accls.analysis.sequential_loops import in_sequential_loop
from accls.frontend import Loop, Poly, SourceFile

__all__ = ["once_reason", "repeats", "runs_once"]

SHARE = 8
"""A pass counts as one-off when the repeating loop holds this many times its work."""

_WORD = re.compile(r"[A-Za-z_]\w*")
_CALL_DEPTH = 3  # callers followed up towards `main`

Work = Callable[[Loop, bool], Poly | None]  # (loop, one iteration only) -> units


def _top_level(source: SourceFile, function: str | None) -> list[Loop]:
    """The loops of `function` that no other loop of it holds."""
    return [n for n in source.nests if n.function == function and function is not None]


def _kernels(analysis: FileAnalysis, outer: Loop) -> list[Loop]:
    """The loops in `outer`'s body or in a function of the file it calls.

    Proved parallel or not: the experts' kernels are often those the analysis
    cannot prove (a force loop through a call), and a pass beside many repeats of
    serial work saves an even smaller share of the run.
    """
    source = analysis.source
    found = [inner for inner in outer.walk() if inner.id != outer.id]
    for call in outer.calls:
        if source.function(call.name) is None or call.name == outer.function:
            continue
        found += [i for n in source.nests if n.function == call.name for i in n.walk()]
    return found


def _map(analysis: FileAnalysis, loop: Loop) -> bool:
    """True when `loop` reads and writes memory and sums nothing: a map over data."""
    memory = [r for r in loop.refs if r.subscripts or r.deref]
    reduces = any(s.cls is ScalarClass.REDUCTION for s in analysis.of(loop).scalars)
    return (
        not reduces
        and any(r.is_read for r in memory)
        and any(r.is_write for r in memory)
    )


def repeats(outer: Loop) -> bool:
    """True when `outer`'s variable indexes no data in its body: a time loop."""
    var = outer.var
    if var is None:
        return False
    body = [r for r in outer.refs if r.subscripts]
    uses = any(var in _WORD.findall(s.text) for r in body for s in r.subscripts)
    args = any(var in _WORD.findall(a) for c in outer.calls for a in c.args)
    return not uses and not args


def _first_touch(source: SourceFile, loop: Loop) -> bool:
    """True when `loop` is the first code of its function to touch an array it writes.

    An array its function declares (a local, or a global) that no element access
    and no call argument reaches before the loop: the loop builds it, and sharing
    out that first touch places its pages with the threads that use them.
    """
    fn = source.function(loop.function)
    if fn is None:
        return False
    start = loop.span.start_byte
    params = {p.name for p in fn.params}
    written = {
        r.name
        for r in loop.refs
        if r.is_write and (r.subscripts or r.deref) and r.name not in params
    }
    for name in written:
        elements = any(
            r.name == name and (r.subscripts or r.deref) and r.span.start_byte < start
            for r in fn.refs
        )
        passed = any(
            c.span.start_byte < start and name in _WORD.findall(" ".join(c.args))
            for c in fn.call_sites
        )
        if not elements and not passed:
            return True
    return False


def _in_loop(source: SourceFile, function: str, start: int) -> bool:
    """True when the byte `start` of `function` lies inside one of its loops.

    A `while` or `do ... while` counts: its body runs many times too.
    """
    return in_sequential_loop(source, function, start) or any(
        n.function == function and n.span.start_byte <= start < n.span.end_byte
        for n in source.nests
    )


def runs_once(source: SourceFile, name: str | None, depth: int = 0) -> bool:
    """True when `name` runs once per run of the program the file holds whole.

    `main` does; another function when every call of it lies outside any loop of a
    function that runs once, and nothing passes it as a function pointer.
    """
    if name == "main":
        return True
    if name is None or depth > _CALL_DEPTH or source.function("main") is None:
        return False
    calls = [
        (caller.name, call.span.start_byte)
        for caller in source.functions
        for call in caller.call_sites
        if call.name == name
    ]
    mentions = sum(
        1
        for fn in source.functions
        for c in fn.call_sites
        if name in _WORD.findall(" ".join(c.args))
    )
    return (
        bool(calls)
        and not mentions  # passed as a function pointer: called who knows where
        and all(
            caller != name
            and not _in_loop(source, caller, start)
            and runs_once(source, caller, depth + 1)
            for caller, start in calls
        )
    )


def _repeaters(analysis: FileAnalysis, function: str | None) -> list[Loop]:
    """The top-level loops of `function` that repeat kernels."""
    return [
        outer
        for outer in _top_level(analysis.source, function)
        if not analysis.of(outer).parallel
        and repeats(outer)
        and _kernels(analysis, outer)
    ]


def once_reason(
    analysis: FileAnalysis, loop: Loop, work: Work, at: Callable[[Poly], float]
) -> str:
    """Why `loop` is a one-off pass beside a loop that repeats the kernels, or ""."""
    source = analysis.source
    tops = _top_level(source, loop.function)
    if all(top.id != loop.id for top in tops) or not _map(analysis, loop):
        return ""
    if in_sequential_loop(source, loop.function, loop.id):
        return ""  # in a `while` or `do` body: it runs as often as the kernels
    mine = work(loop, False)
    if mine is None:
        return ""
    for outer in _repeaters(analysis, loop.function):
        repeated = work(outer, False)
        if outer.id == loop.id or repeated is None:
            continue
        before = loop.span.start_byte < outer.span.start_byte
        if before and _first_touch(source, loop):
            continue
        if at(mine) * SHARE <= at(repeated):
            when = "before" if before else "after"
            return (
                f"one-off pass: it runs once, {when} the loop at line {outer.line} "
                "that repeats the kernels; a region here saves a part of "
                "one kernel's time"
            )
    if not runs_once(source, loop.function):
        return ""
    for fn in source.functions:
        if fn.name == loop.function or not runs_once(source, fn.name):
            continue
        for outer in _repeaters(analysis, fn.name):
            repeated = work(outer, False)
            if repeated is not None and at(mine) * SHARE <= at(repeated):
                return (
                    f"one-off pass: `{loop.function}()` runs once, beside the loop "
                    f"at line {outer.line} that repeats the kernels; a "
                    "region here saves a part of one kernel's time"
                )
    return ""
