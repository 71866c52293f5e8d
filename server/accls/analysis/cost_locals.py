"""Sizes a function fixes itself: constant locals, and constants every caller passes.

`int radius = 5; int diameter = radius * 2 - 1; for (x = 0; x < diameter; x++)`
runs nine times, as surely as with `#define DIAMETER 9`: the local is initialised
with a constant and never written again (nor is its address taken). Likewise
`strelDisk(disk, radius)`, when every call of `strelDisk` in a program the file
shows whole passes 5 for `radius`, fixes the size of its loops. The cost model
counts such sizes like the macros', and the `const` globals the function sees too
(cost_globals).
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.cost_globals import global_constants
from accls.analysis.cost_initialisers import folded_initialisers
from accls.frontend import Function, Poly, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = ["function_constants"]

_CALL_DEPTH = 2  # callers whose own constants feed their arguments


def _written_once(fn: Function, name: str) -> bool:
    """True when `name`'s only write is its declaration and its address is not taken."""
    refs = [r for r in fn.refs if r.name == name]
    writes = [r for r in refs if r.is_write]
    return len(writes) <= 1 and not any(r.escapes for r in refs)


def _locals(
    source: SourceFile, fn: Function, known: Mapping[str, Poly]
) -> dict[str, Poly]:
    """The scalar locals of `fn` that a constant initialises and nothing writes."""
    counts: dict[str, int] = {}
    for var in (*fn.locals, *fn.params):
        counts[var.name] = counts.get(var.name, 0) + 1

    def keep(var: Var) -> bool:
        plain = not (var.dims or var.pointers or var.static or var.volatile)
        return plain and counts[var.name] == 1 and _written_once(fn, var.name)

    return folded_initialisers(source, fn.locals, known, keep)


def _passed(
    source: SourceFile, fn: Function, known: Mapping[str, Poly], depth: int
) -> dict[str, Poly]:
    """The parameters of `fn` every call of it in the file sets to one constant."""
    if depth > _CALL_DEPTH or not (fn.static or source.function("main") is not None):
        return {}
    values: list[dict[str, Poly]] = []
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name != fn.name:
                continue
            if caller.name == fn.name or len(call.args) != len(fn.params):
                return {}
            here = {**known, **function_constants(source, caller, known, depth + 1)}
            bound: dict[str, Poly] = {}
            for param, arg in zip(fn.params, call.args, strict=True):
                value = expression_poly(arg)
                value = value.substitute(here) if value is not None else None
                if value is not None and value.is_constant:
                    bound[param.name] = value
            values.append(bound)
    if not values:
        return {}
    first = values[0]
    return {
        name: value
        for name, value in first.items()
        if all(v.get(name) == value for v in values[1:]) and _fixed_param(fn, name)
    }


def _fixed_param(fn: Function, name: str) -> bool:
    """True when parameter `name` is a plain scalar the body never writes."""
    param = fn.lookup(name)
    if param is None or param.dims or param.pointers:
        return False
    refs = [r for r in fn.refs if r.name == name]
    return not any(r.is_write or r.escapes for r in refs)


def function_constants(
    source: SourceFile, fn: Function, known: Mapping[str, Poly], depth: int = 0
) -> dict[str, Poly]:
    """The sizes `fn` fixes: const globals, callers' constant arguments, locals."""
    seen = global_constants(source, fn, known)
    passed = _passed(source, fn, known, depth)
    return {**seen, **passed, **_locals(source, fn, {**known, **seen, **passed})}
