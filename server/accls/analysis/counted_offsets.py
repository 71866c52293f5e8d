"""The offsets a subscript takes over the constant-bound loops around it in a function.

`for (i = 0; i < 8; ++i) fx[i] = ...` in a callee writes `fx[0]` to `fx[7]` and
nothing else of `fx`: the subscript is affine in counters of loops whose bounds
and step are literals, so its least and greatest values are known. callee_slices
takes that range as it takes literal offsets (`fx[0]` ... `fx[7]` written out).

A counter counts only when nothing else can change it: it is a local of the
function, its address is never taken, the loop body never writes it (an inner
loop reusing it included) nor declares another of its name, and the reference
lies in the body (not the header). Anything else gives None.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.frontend import Function, Loop, Poly, Ref, SourceFile

__all__ = ["counted_range", "counter_kept", "function_loops"]


def function_loops(fn: Function, source: SourceFile) -> dict[int, Loop]:
    """Every loop of the file inside `fn`, by id."""
    start, end = fn.span.start_byte, fn.span.end_byte
    return {
        loop.id: loop
        for nest in source.nests
        if start <= nest.span.start_byte < end
        for loop in nest.walk()
    }


def counted_range(
    poly: Poly,
    ref: Ref,
    fn: Function,
    loops: Mapping[int, Loop],
    macros: Mapping[str, int] | None = None,
) -> tuple[int, int] | None:
    """The least and greatest value of `poly` at `ref`, or None when unknown.

    `macros`, the file's integer macros, may give a bound its value (`a < NP`).
    """
    if not poly.is_affine:
        return None
    low = high = poly.constant
    for name in poly.names():
        loop = _counter_loop(name, ref, loops)
        if loop is None:
            return None
        values = _counter_values(loop, macros or {})
        if values is None or not counter_kept(name, loop, fn):
            return None
        ends = (poly.coeff(name) * values[0], poly.coeff(name) * values[1])
        low, high = low + min(ends), high + max(ends)
    return low, high


def _counter_loop(name: str, ref: Ref, loops: Mapping[int, Loop]) -> Loop | None:
    """The innermost loop around `ref` counting `name`, with `ref` in its body."""
    for loop_id in reversed(ref.loops):
        loop = loops.get(loop_id)
        if loop is None:
            return None
        if loop.var == name:
            body = loop.body
            inside = body.start_byte <= ref.span.start_byte < body.end_byte
            return loop if inside else None
    return None


def _counter_values(loop: Loop, macros: Mapping[str, int]) -> tuple[int, int] | None:
    """The first and last value of the counter of a loop with literal bounds."""
    if loop.range_for is not None or loop.fortran or loop.step_symbol:
        return None
    lower, upper, step = loop.lower, loop.upper, loop.step
    if lower is None or upper is None or not step:
        return None
    values = {name: Poly.const(v) for name, v in macros.items()}
    lower, upper = lower.substitute(values), upper.substitute(values)
    if not (lower.is_constant and upper.is_constant):
        return None
    first, bound = lower.constant, upper.constant
    if step > 0 and loop.cond_op in ("<", "<="):
        end = bound - 1 if loop.cond_op == "<" else bound
    elif step < 0 and loop.cond_op in (">", ">="):
        end = bound + 1 if loop.cond_op == ">" else bound
    else:
        return None
    if (end - first) * step < 0:
        return None  # it never runs
    # The last value the step reaches: `j += 3` below 8 stops at 6, not 7.
    last = first + (end - first) // step * step
    return min(first, last), max(first, last)


def counter_kept(name: str, loop: Loop, fn: Function) -> bool:
    """Whether only the loop's header changes `name` while its body runs."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or var.address_taken:
        return False
    body = loop.body
    for local in fn.locals:
        if local.name != name:
            continue
        if local.span is None and fn.declarations(name) > 1:
            return False
        if local.span is not None and (
            body.start_byte <= local.span.start_byte < body.end_byte
        ):
            return False  # a local of the same name hides the counter
    for ref in fn.refs:
        if ref.name != name:
            continue
        if ref.escapes:
            return False
        if ref.is_write and body.start_byte <= ref.span.start_byte < body.end_byte:
            return False
    return True
