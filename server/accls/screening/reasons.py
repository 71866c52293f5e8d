"""Refusal reasons grouped in classes a user acts on, for the chart and the table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from accls.analysis import LoopFacts
from accls.analysis.model import Obstacle, ObstacleCode

__all__ = ["decisive", "reason_class", "reason_counts"]

_CLASSES: dict[ObstacleCode, str] = {
    ObstacleCode.DEPENDENCE: "array dependence",
    ObstacleCode.ALIAS: "possible aliasing",
    ObstacleCode.POINTER: "possible aliasing",
    ObstacleCode.CALL: "call with unknown effects",
    ObstacleCode.AMBIGUOUS: "call with unknown effects",
    ObstacleCode.SCALAR_CARRIED: "scalar carried between iterations",
    ObstacleCode.CONDITIONAL_LAST: "scalar carried between iterations",
    ObstacleCode.MEMBER_WRITE: "scalar carried between iterations",
    ObstacleCode.CLASS_PRIVATE: "scalar carried between iterations",
    ObstacleCode.STATIC: "scalar carried between iterations",
    ObstacleCode.VOLATILE: "scalar carried between iterations",
    ObstacleCode.ROUNDING: "scalar carried between iterations",
    ObstacleCode.WIDE: "scalar carried between iterations",
    ObstacleCode.INDUCTION: "induction variable",
    ObstacleCode.INDUCTION_VARIABLE: "induction variable",
    ObstacleCode.CONDITIONAL_INDUCTION: "induction variable",
    ObstacleCode.SHAPE: "loop shape or control flow",
    ObstacleCode.BOUND: "loop shape or control flow",
    ObstacleCode.EXIT: "loop shape or control flow",
    ObstacleCode.UNBOUNDED: "loop shape or control flow",
    ObstacleCode.EXTENT: "access outside the array",
    ObstacleCode.OPAQUE: "not analysed",
    ObstacleCode.SYNTAX: "not analysed",
    ObstacleCode.TOO_LARGE: "not analysed",
    ObstacleCode.INTERNAL: "not analysed",
}
SMALL = "too little work"
"""The class of a loop that is safe in parallel but too small to gain from it."""
OTHER = "other"
"""The class of a refusal that names no obstacle of the analysis."""

# Which obstacle decides when a loop has several: what blocks any rewrite first.
_PRIORITY = (
    "not analysed",
    "loop shape or control flow",
    "call with unknown effects",
    "possible aliasing",
    "induction variable",
    "scalar carried between iterations",
    "access outside the array",
    "array dependence",
)
_RANK = {name: rank for rank, name in enumerate(_PRIORITY)}


def reason_class(code: ObstacleCode) -> str:
    """The group an obstacle's code counts in."""
    return _CLASSES.get(code, OTHER)


def decisive(facts: LoopFacts) -> Obstacle | None:
    """The obstacle to fix first: the most blocking class, then the earliest line."""
    if not facts.obstacles:
        return None
    return min(
        facts.obstacles,
        key=lambda o: (_RANK.get(reason_class(o.code), len(_RANK)), o.line),
    )


def reason_counts(classes: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """How many refusals each class has, the largest first, names breaking ties."""
    counts = Counter(c for c in classes if c)
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
