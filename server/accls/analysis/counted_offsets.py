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
    known: Mapping[str, tuple[int, int]] | None = None,
) -> tuple[int, int] | None:
    """The least and greatest value of `poly` at `ref`, or None when unknown.

    `known` bounds the symbols a loop bound may use: the file's integer macros
    (`a < NP`), the ranges every call passes to a parameter (`a < n`).
    """
    if not poly.is_affine:
        return None
    low = high = poly.constant
    for name in poly.names():
        loop = _counter_loop(name, ref, loops)
        if loop is None:
            return None
        values = _counter_values(loop, known or {})
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


def _counter_values(
    loop: Loop, known: Mapping[str, tuple[int, int]]
) -> tuple[int, int] | None:
    """The least and greatest value of the counter of a loop with known bounds."""
    if loop.range_for is not None or loop.fortran or loop.step_symbol:
        return None
    step = loop.step
    if loop.lower is None or loop.upper is None or not step:
        return None
    lower, upper = _span(loop.lower, known), _span(loop.upper, known)
    if lower is None or upper is None:
        return None
    if step > 0 and loop.cond_op in ("<", "<="):
        first, end = lower[0], upper[1] - 1 if loop.cond_op == "<" else upper[1]
    elif step < 0 and loop.cond_op in (">", ">="):
        first, end = lower[1], upper[0] + 1 if loop.cond_op == ">" else upper[0]
    else:
        return None
    if (end - first) * step < 0:
        return None  # it never runs (or the bounds are unknown enough to doubt it)
    # The last value the step reaches: `j += 3` below 8 stops at 6, not 7.
    last = first + (end - first) // step * step if lower[0] == lower[1] else end
    return min(first, last), max(first, last)


def _span(poly: Poly, known: Mapping[str, tuple[int, int]]) -> tuple[int, int] | None:
    """The least and greatest value of an affine bound over the `known` ranges."""
    if not poly.is_affine:
        return None
    low = high = poly.constant
    for name in poly.names():
        if name not in known:
            return None
        coeff = poly.coeff(name)
        ends = (coeff * known[name][0], coeff * known[name][1])
        low, high = low + min(ends), high + max(ends)
    return low, high


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
