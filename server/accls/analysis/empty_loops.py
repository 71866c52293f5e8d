"""Loops that may run no iteration: a `lastprivate` copy then needs a first value.

With no iteration there is no last one, and OpenMP leaves the original of a
`lastprivate` scalar unspecified: gcc copies the private copy out anyway, a value
no iteration set (`for (j = 0; j < n - 1 - i; j++) x = a[j];` leaves `x` as it was
when `i = n - 1`, serially). A `firstprivate` on the same scalar starts each copy
at the original value, so the copy-out of an empty loop writes back what was there.
The loop variable itself is set to its first value by an empty serial loop, which
no clause copies out: used after such a loop, it forbids the pragma. Only a loop
whose bounds are known numbers with at least one iteration between them is sure
to run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.analysis.nest_views import integer_macros
from accls.frontend import Loop, Poly, SourceFile

__all__ = ["keep_first_values", "surely_runs"]


def _number(poly: Poly | None, constants: Mapping[str, int]) -> int | None:
    if poly is None:
        return None
    value = poly.substitute({k: Poly.const(v) for k, v in constants.items()})
    return value.constant if value.is_constant else None


def surely_runs(loop: Loop, constants: Mapping[str, int]) -> bool:
    """True when the loop's bounds are numbers with at least one iteration."""
    if loop.limits:
        return False  # `max(0, t - 4)`: the limits' numbers are not read here
    low = _number(loop.lower, constants)
    high = _number(loop.upper, constants)
    if low is None or high is None:
        return False
    return {
        "<": low < high,
        "<=": low <= high,
        ">": low > high,
        ">=": low >= high,
        "!=": low != high,
    }.get(loop.cond_op or "", False)


def keep_first_values(
    scalars: tuple[ScalarFact, ...], loop: Loop, source: SourceFile
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """Mark the lastprivate scalars of a loop that may be empty: keep first values.

    The loop variable cannot be kept so: serially an empty loop leaves it at its
    first value, which no clause copies out (gcc leaves it as it was before the
    loop). Used after a loop that may be empty, it is an obstacle.
    """
    if surely_runs(loop, integer_macros(source.macros)):
        return scalars, ()
    out: list[ScalarFact] = []
    obstacles: list[Obstacle] = []
    for fact in scalars:
        if fact.cls is not ScalarClass.LASTPRIVATE:
            out.append(fact)
        elif fact.name != loop.var:
            out.append(replace(fact, keep_first=True))
        elif loop.concurrent or loop.in_concurrent:
            out.append(fact)  # a `do concurrent` index is undefined after it anyway
        else:
            out.append(fact)
            obstacles.append(
                Obstacle(
                    code=ObstacleCode.CONDITIONAL_LAST,
                    line=loop.line,
                    variable=fact.name,
                    message=f"the loop variable `{fact.name}` is used after the "
                    "loop, which may run no iteration: then it is "
                    f"`{loop.lower_text or 'its first value'}`, which `lastprivate` "
                    "does not copy out",
                )
            )
    return tuple(out), tuple(obstacles)
