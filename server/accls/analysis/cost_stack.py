"""A bound on compile-time sizes from the stack: an automatic array must fit it.

`DTYPE weight[2*RADIUS+1][2*RADIUS+1];` in a function: the array lives on the
stack, which holds STACK_BYTES at most (Linux's default limit), so its
(2*RADIUS+1)^2 elements of at least a byte each fit only while RADIUS ≤ 1447,
whatever the build sets it to. A loop of that function whose work grows only with
such sizes (`for (ii = 1; ii <= RADIUS; ii++)` filling the weights) is bounded by
them: when the bound is below a region's worth, the loop is small. Programs keep
their data on the heap or in globals; what sits on the stack is a table.

Only names the function cannot change count (a macro the file leaves open, say):
a variable could grow between the declaration and the loop. The declaration must
run before the loop: earlier in the function, in a block that holds the loop.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.cost_features import fmt_units
from accls.frontend import Loop, Poly, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = [
    "STACK_BYTES",
    "automatic_arrays",
    "changeable_names",
    "stack_caps",
    "stack_reason",
]

STACK_BYTES = 8 * 1024 * 1024
"""The most an automatic array can hold: the default stack limit on Linux."""


def _fits(dims: list[Poly], name: str, value: int) -> bool:
    """True when the array of `dims`, at `name` = `value`, fits the stack (bytes)."""
    total = 1
    for dim in dims:
        extent = dim.substitute({name: Poly.const(value)}).constant
        total *= max(extent, 0)
        if total > STACK_BYTES:
            return False
    return True


def _largest(dims: list[Poly], name: str) -> int:
    """The largest value of `name` at which the array still fits the stack."""
    low, high = 0, STACK_BYTES
    while low < high:
        mid = (low + high + 1) // 2
        if _fits(dims, name, mid):
            low = mid
        else:
            high = mid - 1
    return low


def automatic_arrays(source: SourceFile, loop: Loop) -> list[Var]:
    """The automatic arrays of `loop`'s function declared before it, around it."""
    fn = source.function(loop.function)
    if fn is None:
        return []
    return [
        v
        for v in fn.locals
        if v.dims
        and not v.pointers  # `double (*w)[N]` points to the heap
        and not v.static
        and v.scope == "local"
        and v.span is not None
        and v.span.start_byte < loop.span.start_byte
        and v.scope_end >= loop.span.end_byte
    ]


def changeable_names(source: SourceFile, loop: Loop) -> set[str]:
    """The names `loop`'s function can change: its variables, globals, what it sets."""
    fn = source.function(loop.function)
    variables = {v.name for v in source.globals}
    if fn is not None:
        variables |= {v.name for v in (*fn.params, *fn.locals)}
        # A global of a header the file does not show, set in the function.
        variables |= {r.name for r in fn.refs if r.is_write and not r.subscripts}
    return variables


def stack_caps(
    source: SourceFile, loop: Loop, values: Mapping[str, Poly]
) -> dict[str, tuple[int, str]]:
    """The largest value each fixed size may take, and the array that bounds it."""
    variables = changeable_names(source, loop)
    caps: dict[str, tuple[int, str]] = {}
    for var in automatic_arrays(source, loop):
        polys = [expression_poly(d) if d else None for d in var.dims]
        if any(p is None for p in polys):
            continue
        dims = [p.substitute(dict(values)) for p in polys if p is not None]
        names = frozenset().union(*(d.names() for d in dims))
        if len(names) != 1 or any(c <= 0 for d in dims for m, c in d.terms if m):
            continue  # one size, and the array grows with it
        (name,) = names
        if name in variables:
            continue
        cap = _largest(dims, name)
        if name not in caps or cap < caps[name][0]:
            caps[name] = (cap, var.name)
    return caps


def stack_reason(
    source: SourceFile,
    loop: Loop,
    work: Poly,
    values: Mapping[str, Poly],
    floor: int,
) -> str:
    """A small-loop reason when sizes an array on the stack bounds keep `work` small."""
    names = work.names()
    if not names or any(c < 0 for _, c in work.terms):
        return ""  # nothing open, or work that need not grow with the sizes
    caps = stack_caps(source, loop, values)
    if not names <= caps.keys():
        return ""
    most = work.substitute({n: Poly.const(caps[n][0]) for n in names}).constant
    if most >= floor:
        return ""
    bounds = ", ".join(
        f"`{n}` ≤ {caps[n][0]}, or `{caps[n][1]}` outgrows the stack"
        for n in sorted(names)
    )
    return (
        f"small loop: at most {fmt_units(most)} work units ({bounds}); likely "
        "slower in parallel"
    )
