"""Unsigned loop variables that wrap around past their type's ends.

`for (unsigned i = 0; i < n; i += 3)` with `n = 4294967294` takes
`4294967293`, then `4294967296`, which wraps to `0`: the serial loop goes on,
where a parallel loop computes its iteration count once, in the variable's
type (gcc's `n - 0 + 3 - 1` wraps too, and it runs no iteration at all).
Falling loops wrap below zero: `for (unsigned i = n; i > k; i -= 3)` with
`k = 0` goes from `1` to `4294967294`. The last value plus the step passes the
type's maximum only when the bound is within a step of it (`i < n` wraps only
if `n > MAX - step + 1`, `i <= n` if `n > MAX - step`), and passes below zero
only when the bound is under the step (`i > k` if `k + 1 < step`, `i >= k` if
`k < step`). A bound that is a number, or a variable of a narrower unsigned
type, shows it cannot; so does a 64-bit variable that indexes an object in
every iteration, or whose tiles' inner loops do (`tiled_indexes`), or a bound
an earlier loop of the block never passes at the type's end
(`endless_bounds`); any other keeps the loop serial. `int` and other signed
types are left alone: their overflow is no behaviour of a correct program.
"""

from __future__ import annotations

from accls.analysis.endless_bounds import bound_range_from_endless_loop
from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.narrow_counters import loop_number
from accls.analysis.nest_views import integer_macros
from accls.analysis.tiled_indexes import (
    tiles_index_an_object,
    touches_every_iteration,
)
from accls.analysis.unsigned_bounds import unsigned_width
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["unsigned_wrap_obstacle"]

# Unsigned types promoted to `int` before the comparison: their largest values.
_SMALL = {
    "unsigned char": 255,
    "uint8_t": 255,
    "unsigned short": 65535,
    "unsigned short int": 65535,
    "uint16_t": 65535,
    "_Bool": 1,
    "bool": 1,
}


def _base(type_: str, source: SourceFile) -> str:
    return (source.types.scalar_base(type_) or type_).removeprefix("std::")


def _largest(type_: str) -> int | None:
    """The largest value of an unsigned type, None when it is not one."""
    if type_ in _SMALL:
        return _SMALL[type_]
    width = unsigned_width(type_)
    return (1 << width) - 1 if width else None


def _bound_range(
    loop: Loop, fn: Function | None, source: SourceFile
) -> tuple[int, int] | None:
    """The least and the largest values the bound may have, None when unknown."""
    number = loop_number(loop.upper, integer_macros(source.macros))
    if number is not None:
        return number, number
    name = loop.upper_text.strip()
    found = fn.lookup(name) if fn is not None else None
    decl = found or next((g for g in source.globals if g.name == name), None)
    if decl is None or decl.pointers or decl.dims:
        return None
    largest = _largest(_base(decl.type, source))
    return None if largest is None else (0, largest)


def _wraps(step: int, op: str | None, bound: tuple[int, int] | None, top: int) -> bool:
    """True when the value one step past the last may pass the type's ends."""
    if step > 0:
        if op == "<" and step == 1:
            return False
        limit = {"<": top - step + 1, "<=": top - step}.get(op or "")
        if limit is None:
            return False  # not a rising loop's test: not this module's shape
        return bound is None or bound[1] > limit
    down = -step
    if op == ">" and down == 1:
        return False
    least = {">": down - 1, ">=": down}.get(op or "")
    if least is None:
        return False
    return bound is None or bound[0] < least


def unsigned_wrap_obstacle(
    loop: Loop, decl: Var | None, fn: Function | None, source: SourceFile
) -> Obstacle | None:
    """Why an unsigned loop variable that may wrap keeps the loop serial, or None."""
    if decl is None or decl.pointers or decl.dims or loop.fortran:
        return None
    if loop.range_for is not None or loop.limits or loop.cond_op == "!=":
        return None  # a made-up index, bounds of min/max, or refused already
    type_ = _base(decl.type, source)
    if type_ in _SMALL or not unsigned_width(type_):
        return None  # narrower than `int` (`narrow_counters`), or signed
    top = (1 << unsigned_width(type_)) - 1
    step = loop.step
    if step is None and loop.step_symbol:
        step = top  # an unknown positive step may be as large as the type allows
    if not step:
        return None
    if not _wraps(step, loop.cond_op, _bound_range(loop, fn, source), top):
        return None
    if (
        top >= 1 << 63
        and 0 < step < 1 << 32
        and (
            touches_every_iteration(loop, source)
            or tiles_index_an_object(loop, step, fn, source)
        )
    ):
        return None
    # An earlier loop of the block that never ends with the bound at the
    # type's end: this loop is reached only with the bound off that end.
    earlier = bound_range_from_endless_loop(loop, decl, fn, source, top)
    if earlier is not None and not _wraps(step, loop.cond_op, earlier, top):
        return None
    return Obstacle(
        code=ObstacleCode.SHAPE,
        line=loop.line,
        variable=loop.var,
        message=f"the loop variable `{loop.var}` is declared `{decl.type}` and "
        f"steps by {loop.step_text or step}: with `{loop.upper_text}` within a step "
        "of that type's ends the serial loop wraps around and goes on, where a "
        "parallel loop, which counts its iterations in that type, does not",
    )
