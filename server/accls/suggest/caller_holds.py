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

from accls.analysis.array_sections import ArrayUse
from accls.frontend import Call, Function
from accls.suggest.declared_data import declared_in
from accls.suggest.held_proof import held
from accls.suggest.held_round import HeldRound
from accls.suggest.held_spans import held_elsewhere, hold_around

__all__ = ["caller_holds"]

_WORD = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 3  # callers' callers followed, through parameters


def caller_holds(fn: Function, uses: list[ArrayUse], round_: HeldRound) -> list[str]:
    """Why a caller's hold of what `fn`'s parameters point to bars offloading."""
    out: list[str] = []
    params = {p.name: k for k, p in enumerate(fn.params)}
    for use in uses:
        at = params.get(use.name)
        if at is None:
            continue
        why = _at_calls(fn.name, at, round_, 0)
        if why is not None:
            out.append(f"`{use.name}` (a parameter): {why}")
    return out


def _at_calls(callee: str, at: int, round_: HeldRound, depth: int) -> str | None:
    """Why a hold around a call of `callee` bars it, its argument `at` followed."""
    key = (callee, at, depth)
    if key not in round_.callers:
        round_.callers[key] = None  # a recursive call finds no hold
        round_.callers[key] = _first_hold(callee, at, round_, depth)
    return round_.callers[key]


def _first_hold(callee: str, at: int, round_: HeldRound, depth: int) -> str | None:
    for caller, call in round_.calls_of(callee):
        if caller.name == callee or at >= len(call.args):
            continue
        for name in sorted(set(_WORD.findall(call.args[at]))):
            why = _hold_at(caller, call, name, round_, depth)
            if why is not None:
                return why
    return None


def _hold_at(
    caller: Function, call: Call, name: str, round_: HeldRound, depth: int
) -> str | None:
    analysis = round_.analysis
    line = call.span.line
    where = f"`{caller.name}()` calls `{call.name}()` at line {line} with `{name}`"
    declared = declared_in(analysis, round_.sentinel, caller).get(name)
    if declared is not None:
        return (
            f"{where}, which a `declare` at "
            f"{declared.place or f'line {declared.line}'} keeps on the "
            "device: offloaded, the loop would use the device copy"
        )
    directives = round_.scene(caller).directives
    span = (call.span.start_byte, call.span.end_byte)
    if hold_around(analysis.source.data, span, name, directives) is not None:
        return _proof(caller, call, name, round_, depth, where)
    var = caller.lookup(name)
    if var is None and held_elsewhere(analysis, caller, name, round_.sentinel):
        return (
            f"{where}, a global a data directive of another function holds on the "
            "device: offloaded, the loop would use the device copy, which the "
            "host's may not match"
        )
    if var is None or var.scope != "param" or depth >= _DEPTH:
        return None
    at = next(k for k, p in enumerate(caller.params) if p.name == name)
    return _at_calls(caller.name, at, round_, depth + 1)


def _proof(
    caller: Function,
    call: Call,
    name: str,
    round_: HeldRound,
    depth: int,
    where: str,
) -> str | None:
    """Why the caller's hold of `name` around `call` is not proved coherent."""
    mapped = round_.index.call_uses(call, caller) if depth == 0 else None
    mine = [m for m in mapped or () if m.name == name]
    if not mine:
        return (
            f"{where}, which its data directives hold on the device there: "
            "offloaded, the loop would use the device copy, which the host's may "
            "not match"
        )
    site = (call.span.start_byte, call.span.end_byte, call.span.line)
    for use in mine:
        why = held(round_.analysis, caller, site, use, round_.scene(caller), call=True)
        if why is not None:
            return f"{where}: {why}"
    return None
