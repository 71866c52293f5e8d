"""Reductions on `_Bool`/`bool` variables whose operator is not the one C applies.

Every store to a `_Bool` converts the value to 0 or 1 (`!= 0`), so `b += x` in
order is `b = (b + x) != 0`: not a sum, and with `x` of either sign not even an
`||` (`b = 1; b += -1` gives 0). The `+`, `-` and `^` updates are not
associative once each step is converted, so splitting the iterations among
threads and combining the partial values with the same operator changes the
result; compilers also combine them in a wider integer type and store values
other than 0 and 1 in the variable (gcc leaves `4` in a `_Bool` that four
threads summed). `*`, `&`, `|`, `&&`, `||`, `min` and `max` stay exact: on
values that are 0 or 1 each is the same operator on `x != 0` (`&` on `x & 1`).
"""

from __future__ import annotations

from accls.analysis.model import Obstacle, ScalarFact
from accls.analysis.reduction_refusals import refuse_reductions, scalar_decl
from accls.frontend import Function, Loop, RedOp, SourceFile

__all__ = ["bool_reductions"]

_BOOLEAN = frozenset({"_Bool", "bool"})
_INEXACT = frozenset({RedOp.ADD, RedOp.BXOR})


def _boolean_type(
    name: str, fn: Function | None, source: SourceFile, loop: Loop
) -> str:
    """The declared type of scalar `name` when it is `_Bool` or `bool`, else ""."""
    decl = scalar_decl(name, fn, source, loop)
    if decl is None or decl.pointers or decl.dims:
        return ""
    base = source.types.scalar_base(decl.type) or decl.type
    return decl.type if base in _BOOLEAN else ""


def bool_reductions(
    scalars: tuple[ScalarFact, ...],
    obstacles: tuple[Obstacle, ...],
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """The facts left, and the obstacles with one for each inexact `_Bool` reduction."""

    def why(fact: ScalarFact) -> str:
        inexact = fact.op in _INEXACT
        type_ = _boolean_type(fact.name, fn, source, loop) if inexact else ""
        if not type_:
            return ""
        return (
            f"`{fact.name}` is a `{type_}` updated with `+`, `-` or "
            f"`^` (line {fact.line}): each store converts the value to 0 or 1, "
            "so the updates are not a reduction whose partial values "
            "threads could combine"
        )

    return refuse_reductions(scalars, obstacles, why)
