"""Loop variables narrower than `int`: serially they wrap, in parallel they do not.

`for (unsigned char i = 0; i < n; i += 7)` compares and adds in `int`, then stores
back into the narrow type: a value past the type's maximum wraps around
(`252 + 7` is `3`) and the serial loop goes on from there. A parallel loop
computes its iteration count once, and OpenMP computes it in the variable's own
type, where `n - 0 + 7 - 1` may not fit either: gcc runs no iteration at all of
that loop with `n = 250`, where the serial loop runs 36. Only bounds that are
known numbers show that every value the variable takes, the first one past the
bound and the distance between the bounds all fit in the type; otherwise a
variable narrower than `int` keeps the loop serial. `int` and wider types are
left alone: a signed one cannot overflow in a correct program, and an unsigned
one wraps only with a bound within a step of its maximum.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.nest_views import integer_macros
from accls.frontend import Function, Loop, Poly, SourceFile, Var

__all__ = ["counter_decl", "loop_number", "narrow_counter_obstacle", "past_value"]

_BYTE_SIGNED = (-128, 127)
_BYTE_UNSIGNED = (0, 255)
_SHORT_SIGNED = (-32768, 32767)
_SHORT_UNSIGNED = (0, 65535)
_FIXED = {
    "int8_t": _BYTE_SIGNED,
    "uint8_t": _BYTE_UNSIGNED,
    "int16_t": _SHORT_SIGNED,
    "uint16_t": _SHORT_UNSIGNED,
    "_Bool": (0, 1),
    "bool": (0, 1),
}


def _range(type_: str) -> tuple[int, int] | None:
    """The values of a scalar type narrower than `int`; None for `int` and wider."""
    words = set(type_.split())
    if len(words) == 1 and type_ in _FIXED:
        return _FIXED[type_]
    if "char" in words:
        if "unsigned" in words:
            return _BYTE_UNSIGNED
        # A plain `char` is signed or not as the target decides: both must hold.
        return _BYTE_SIGNED if "signed" in words else (0, 127)
    if "short" in words:
        return _SHORT_UNSIGNED if "unsigned" in words else _SHORT_SIGNED
    return None


def loop_number(poly: Poly | None, constants: Mapping[str, int]) -> int | None:
    """The number a bound is, integer macros replaced; None when not a number."""
    if poly is None:
        return None
    value = poly.substitute({k: Poly.const(v) for k, v in constants.items()})
    return value.constant if value.is_constant else None


def past_value(bound: int, step: int, op: str | None) -> int | None:
    """The value that ends the loop: the last one it takes, one step on."""
    if op == "!=":
        return bound
    if step > 0:
        return {"<": bound - 1 + step, "<=": bound + step}.get(op or "")
    return {">": bound + 1 + step, ">=": bound + step}.get(op or "")


def _fits(loop: Loop, low: int, high: int, constants: Mapping[str, int]) -> bool:
    """True when the bounds are numbers that keep every value within [low, high]."""
    first = loop_number(loop.lower, constants)
    bound = loop_number(loop.upper, constants)
    step = loop.step
    if first is None or bound is None or not step or loop.limits:
        return False
    past = past_value(bound, step, loop.cond_op)
    if past is None:
        return False
    span = abs(bound - first) + abs(step)  # the trip count's intermediate value
    return min(first, bound, past) >= low and max(first, bound, past, span) <= high


def counter_decl(loop: Loop, fn: Function | None, source: SourceFile) -> Var | None:
    """The declaration of the loop's variable that its header sees.

    A function may declare `i` in many loops, with other types: the one in the
    header itself, else the innermost one declared before the loop whose scope
    covers it, else a parameter or a global.
    """
    name = loop.var
    declared = (*fn.locals, *fn.params) if fn is not None else ()
    seen = [v for v in declared if v.name == name]
    header = loop.header
    for var in seen:
        at = var.span.start_byte if var.span is not None else -1
        if loop.var_declared and header.start_byte <= at < header.end_byte:
            return var
    visible = [
        v
        for v in seen
        if v.span is not None
        and v.span.start_byte < loop.span.start_byte
        and (v.scope_end < 0 or v.scope_end >= loop.span.end_byte)
    ]
    if visible:
        return max(visible, key=lambda v: v.span.start_byte if v.span else -1)
    if seen:
        return seen[0]
    return next((g for g in source.globals if g.name == name), None)


def narrow_counter_obstacle(
    loop: Loop, decl: Var | None, source: SourceFile
) -> Obstacle | None:
    """Why a loop variable narrower than `int` keeps the loop serial, or None.

    `decl` is the variable's declaration (`counter_decl`).
    """
    if decl is None or decl.pointers or decl.dims or loop.fortran:
        return None
    if loop.range_for is not None:
        return None  # the variable is an index the front end made up
    type_ = source.types.scalar_base(decl.type) or decl.type
    found = _range(type_.removeprefix("std::"))
    if found is None or _fits(loop, *found, integer_macros(source.macros)):
        return None
    return Obstacle(
        code=ObstacleCode.SHAPE,
        line=loop.line,
        variable=loop.var,
        message=f"the loop variable `{loop.var}` is declared `{decl.type}`: its bounds "
        "are not numbers that keep every value within that type, and where it wraps "
        "around the serial loop goes on while a parallel loop, which counts its "
        "iterations in that type, does not",
    )
