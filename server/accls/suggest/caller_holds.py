"""A kernel's pointer parameter that a caller holds on the device around the call.

`main` does `enter data copyin(a[0:n])` (or opens a `data` region, or
`declare`s the array) and calls `kernel(a, n)`: inside that hold the copy
clauses of the kernel's offloaded loop move nothing, so what the loop writes
stays on the device and what it reads is the device's copy. Each call the
file shows is checked: the caller's hold must pass the proof a hold around the
loop passes (`held_proof`), with the call as the offloaded code, which needs
the callee to be a kernel function (its host code touches no caller's array).
A hold further up (a caller's caller, through the caller's parameters)
refuses: no proof is tried across two calls. Calls from other files are not
seen here.
"""

from __future__ import annotations

import re

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse
from accls.analysis.device_coherence import function_directives
from accls.frontend import Call, Function
from accls.suggest.declared_data import declared_in
from accls.suggest.held_proof import held, scene
from accls.suggest.held_spans import hold_around
from accls.suggest.lifetime_uses import KernelIndex

__all__ = ["caller_holds"]

_WORD = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 3  # callers' callers followed, through parameters


def caller_holds(
    analysis: FileAnalysis,
    fn: Function,
    uses: list[ArrayUse],
    sentinel: str,
    index: KernelIndex,
) -> list[str]:
    """Why a caller's hold of what `fn`'s parameters point to bars offloading."""
    out: list[str] = []
    params = {p.name: k for k, p in enumerate(fn.params)}
    for use in uses:
        at = params.get(use.name)
        if at is None:
            continue
        why = _at_calls(analysis, fn.name, at, sentinel, index, 0)
        if why is not None:
            out.append(f"`{use.name}` (a parameter): {why}")
    return out


def _at_calls(
    analysis: FileAnalysis,
    callee: str,
    at: int,
    sentinel: str,
    index: KernelIndex,
    depth: int,
) -> str | None:
    """Why a hold around a call of `callee` bars it, its argument `at` followed."""
    for caller in analysis.source.functions:
        if caller.name == callee:
            continue
        for call in caller.call_sites:
            if call.name != callee or at >= len(call.args):
                continue
            names = sorted(set(_WORD.findall(call.args[at])))
            for name in names:
                why = _hold_at(analysis, caller, call, name, sentinel, index, depth)
                if why is not None:
                    return why
    return None


def _hold_at(
    analysis: FileAnalysis,
    caller: Function,
    call: Call,
    name: str,
    sentinel: str,
    index: KernelIndex,
    depth: int,
) -> str | None:
    line = call.span.line
    where = f"`{caller.name}()` calls `{call.name}()` at line {line} with `{name}`"
    declared = declared_in(analysis, sentinel, caller).get(name)
    if declared is not None:
        return (
            f"{where}, which a `declare` at line {declared.line} keeps on the "
            "device: offloaded, the loop would use the device copy"
        )
    directives = function_directives(analysis.source, caller, sentinel)
    span = (call.span.start_byte, call.span.end_byte)
    hold = hold_around(analysis.source.data, span, name, directives)
    if hold is not None:
        return _proof(analysis, caller, call, name, sentinel, index, depth, where)
    var = caller.lookup(name)
    if var is None or var.scope != "param" or depth >= _DEPTH:
        return None
    at = next(k for k, p in enumerate(caller.params) if p.name == name)
    return _at_calls(analysis, caller.name, at, sentinel, index, depth + 1)


def _proof(
    analysis: FileAnalysis,
    caller: Function,
    call: Call,
    name: str,
    sentinel: str,
    index: KernelIndex,
    depth: int,
    where: str,
) -> str | None:
    """Why the caller's hold of `name` around `call` is not proved coherent."""
    mapped = index.call_uses(call, caller) if depth == 0 else None
    mine = [m for m in mapped or () if m.name == name]
    if not mine:
        return (
            f"{where}, which its data directives hold on the device there: "
            "offloaded, the loop would use the device copy, which the host's may "
            "not match"
        )
    device = tuple(top.loop for top in index.tops(caller.name))
    here = scene(analysis, caller, sentinel, device)
    site = (call.span.start_byte, call.span.end_byte, call.span.line)
    for use in mine:
        why = held(analysis, caller, site, use, here, call=True)
        if why is not None:
            return f"{where}: {why}"
    return None
