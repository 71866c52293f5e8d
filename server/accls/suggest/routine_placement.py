"""Loops of a function the user compiles for the device: orphaned levels or none.

A function marked `#pragma acc routine gang|worker|vector` runs inside the
caller's compute construct, so its loops take an orphaned `loop` at the
routine's level or below, never a compute construct of their own: compilers
reject one ("OpenACC region inside of OpenACC routine"), and a `parallel loop`
there would nest parallelism the caller already spread. A `routine seq`
function runs in one lane: its loops stay sequential. With OpenMP offload a
function in `declare target` may be called from a target region, where a
`target` construct of its own would nest in it: no offload is offered there.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.frontend import Function, Loop, SourceFile, parse_directive
from accls.suggest.context import Placement
from accls.suggest.declare_scan import PragmaLine, omp_declares, pragma_lines
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Target

__all__ = ["device_functions", "orphan_reason", "routine_placement"]

_ABOVE = {"gang": (), "worker": ("gang",), "vector": ("gang", "worker")}
_ROUTINE = re.compile(r"^\s*routine\b\s*(?:\(\s*([A-Za-z_]\w*)\s*\))?(.*)$", re.S)
_LEVEL = re.compile(r"\b(gang|worker|vector|seq)\b")
_CALLEE = re.compile(rb"([A-Za-z_]\w*)\s*\(")


def _function(loop: Loop, source: SourceFile) -> Function | None:
    start = loop.span.start_byte
    for fn in source.functions:
        if fn.name == loop.function and fn.span.start_byte <= start < fn.span.end_byte:
            return fn
    return None


def _next_declared(data: bytes, at: int) -> str | None:
    """The function a directive before a declaration or definition marks."""
    head = data[at : at + 4096].split(b";", 1)[0].split(b"{", 1)[0]
    found = _CALLEE.search(head)
    return found.group(1).decode() if found else None


def device_functions(source: SourceFile, sentinel: str) -> dict[str, str]:
    """Function name -> the directive text that compiles it for the device.

    OpenACC: `routine` before a declaration or definition, or `routine(name)`.
    OpenMP: functions defined inside `declare target` ... `end declare target`
    (or `begin declare target`), and those a `declare target(list)`, `to` or
    `enter` list names.
    """
    data = source.data
    out: dict[str, str] = {}
    if sentinel == "acc":
        for pragma in pragma_lines(data, sentinel):
            routine = _ROUTINE.match(pragma.text)
            name = routine and (routine.group(1) or _next_declared(data, pragma.end))
            if name:
                out.setdefault(name, _whole(pragma))
        return out
    declares = omp_declares(data)
    for word, name, pragma in declares.listed:
        if word != "link":
            out.setdefault(name, _whole(pragma))
    for at, until, opener in declares.blocks:
        for fn in source.functions:
            if at <= fn.span.start_byte < until:
                out.setdefault(fn.name, _whole(opener))
    return out


def _whole(pragma: PragmaLine) -> str:
    return " ".join(pragma.raw.decode("utf-8", "replace").replace("\\\n", " ").split())


def routine_placement(
    loop: Loop, analysis: FileAnalysis, opts: SuggestOptions, where: Placement
) -> Placement | str:
    """`where` for a loop of a device-marked function, or why it takes no pragma."""
    source = analysis.source
    if where.compute is not None or loop.function is None:
        return where
    if opts.dialect is Dialect.OPENMP and opts.target is not Target.GPU:
        return where
    fn = _function(loop, source)
    if fn is None:
        return where
    key = ("device functions", opts.dialect.sentinel)
    marks = analysis.memo.get(key)
    if not isinstance(marks, dict):
        marks = analysis.memo[key] = device_functions(source, opts.dialect.sentinel)
    mark = marks.get(fn.name)
    if mark is None:
        return where
    name = f"`{fn.name}()`"
    if opts.dialect is Dialect.OPENMP:
        return (
            f"{name} is compiled for the device (`{mark}`): called from a target "
            "region, a `target` construct inside it would nest in the caller's; "
            "offload the caller's loop instead"
        )
    routine = _ROUTINE.match(mark.split("acc", 1)[1])
    word = _LEVEL.search(routine.group(2)) if routine is not None else None
    level = word.group(1) if word else "seq"
    if level == "seq":
        return (
            f"{name} is `{mark}`: it runs in one lane of its caller's parallel "
            "loop, so its loops run sequentially; mark it `routine vector` (or "
            "`worker`) to spread them"
        )
    directive = parse_directive(mark)
    if directive is None:
        return where
    return replace(where, compute=directive, loop_levels=_ABOVE[level])


def orphan_reason(where: Placement) -> str:
    """Why a loop of a routine takes an orphaned `loop` (`where` from above)."""
    mark = where.compute.text if where.compute is not None else "a routine mark"
    return (
        f"inside a function marked `{mark}`: it runs in the caller's compute "
        "construct, so the loop takes an orphaned `loop` at the routine's level "
        "or below, with no compute construct or data clauses of its own"
    )
