"""One loop in a few words: the verdict, the decisive reason, and the fix if any.

The hover, the code lenses and the screening report all say the same thing about
a loop; this is where it is decided, from the facts and the suggestion alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from accls.analysis import Dependence, DepKind, LoopFacts, Obstacle, ObstacleCode
from accls.analysis.cost import Estimate
from accls.suggest.suggestion import Suggestion

__all__ = [
    "SMALL_TRIP_COUNT",
    "Decision",
    "DependenceGroup",
    "FixKind",
    "Verdict",
    "decide",
    "group_dependences",
    "short_title",
]

SMALL_TRIP_COUNT = 16
"""A parallel loop with a constant trip count below this is likely not worth it."""


class Verdict(StrEnum):
    """What accls concludes about one loop."""

    PARALLEL = "parallel"
    SMALL = "parallel, but small"  # a constant trip count too small to pay off
    SERIAL = "not parallel"
    ANNOTATED = "already annotated"  # the user wrote a pragma on it
    COVERED = "inside a parallel loop"  # an enclosing loop's construct runs it


class FixKind(StrEnum):
    """What a user can do about a refusal (the server's action of that kind)."""

    RESTRICT = "restrict"  # declare the pointers `restrict`
    INDUCTION = "induction"  # rewrite the counters in closed form
    NONE = "none"


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """The verdict on a loop, the one reason that decides it, and the fix."""

    verdict: Verdict
    reason: Obstacle | None  # the decisive obstacle of a refused loop
    fix: FixKind = FixKind.NONE
    trip_count: int | None = None  # a constant trip count, when known
    cost: str = ""  # why the cost model expects the pragma not to pay off
    estimate: str = ""  # the cost model's estimate of the loop's work


# Obstacles no rewrite of the body lifts come first: naming `restrict` when a
# dependence remains would send the user after the wrong thing.
_LAST = (ObstacleCode.ALIAS, ObstacleCode.INDUCTION_VARIABLE)


def _decisive(obstacles: Sequence[Obstacle]) -> Obstacle | None:
    hard = [o for o in obstacles if o.code not in _LAST]
    ranked = hard or list(obstacles)
    return ranked[0] if ranked else None


def _constant(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None


def decide(
    facts: LoopFacts,
    suggestion: Suggestion | None = None,
    *,
    covered: bool = False,
    estimate: Estimate | None = None,
) -> Decision:
    """The verdict of `facts` for the model of `suggestion` (None: facts alone).

    `covered`: the listing left the loop out, as part of an enclosing construct;
    `estimate`: the cost model's view of the suggestion's pragma.
    """
    trips = _constant(facts.loop.trip_count)
    if covered:
        return Decision(verdict=Verdict.COVERED, reason=None, trip_count=trips)
    if suggestion is not None and suggestion.existing is not None:
        return Decision(verdict=Verdict.ANNOTATED, reason=None, trip_count=trips)
    if suggestion is not None and (
        suggestion.collapsed_into is not None
        or (suggestion.inner_of is not None and suggestion.pragma is None)
    ):
        return Decision(verdict=Verdict.COVERED, reason=None, trip_count=trips)
    if facts.parallel:
        small = trips is not None and trips < SMALL_TRIP_COUNT
        unprofitable = estimate is not None and estimate.profitable is False
        cost = estimate.why if estimate is not None and unprofitable else ""
        verdict = Verdict.SMALL if small or cost else Verdict.PARALLEL
        return Decision(
            verdict=verdict,
            reason=None,
            trip_count=trips,
            cost=cost,
            estimate=estimate.summary if estimate is not None else "",
        )
    reason = _decisive(facts.obstacles)
    codes = {o.code for o in facts.obstacles}
    fix = FixKind.NONE
    if codes == {ObstacleCode.ALIAS}:
        fix = FixKind.RESTRICT
    elif facts.inductions and codes <= {ObstacleCode.INDUCTION_VARIABLE}:
        fix = FixKind.INDUCTION
    return Decision(verdict=Verdict.SERIAL, reason=reason, fix=fix, trip_count=trips)


@dataclass(frozen=True, slots=True, kw_only=True)
class DependenceGroup:
    """The dependences of one array and kind carried by a loop."""

    array: str
    kind: DepKind
    lines: tuple[int, ...]  # the lines of their references, sorted
    distances: tuple[int, ...]  # the known distances at the loop's level, sorted
    count: int
    assumed: bool  # at least one was assumed, not proved

    def render(self) -> str:
        """`a`: flow dependence (x3), lines 20-21, distance 1."""
        times = f" (x{self.count})" if self.count > 1 else ""
        where = ", ".join(str(line) for line in self.lines)
        label = "lines" if len(self.lines) > 1 else "line"
        text = f"`{self.array}`: {self.kind.value} dependence{times}, {label} {where}"
        if self.distances:
            label = "distances" if len(self.distances) > 1 else "distance"
            text += f", {label} " + ", ".join(str(d) for d in self.distances)
        return text + (" (assumed)" if self.assumed else "")


def _distance(dep: Dependence, loop: int) -> int | None:
    if loop in dep.loops:
        level = dep.loops.index(loop)
        if level < len(dep.distance):
            return dep.distance[level]
    return None


def group_dependences(facts: LoopFacts) -> tuple[DependenceGroup, ...]:
    """The loop's carried dependences, one group per array and kind."""
    groups: dict[tuple[str, DepKind], list[Dependence]] = {}
    for dep in facts.dependences:
        groups.setdefault((dep.array, dep.kind), []).append(dep)
    out: list[DependenceGroup] = []
    for (array, kind), deps in groups.items():
        lines = {d.source.line for d in deps} | {d.sink.line for d in deps}
        known = {_distance(d, facts.loop.id) for d in deps}
        out.append(
            DependenceGroup(
                array=array,
                kind=kind,
                lines=tuple(sorted(lines)),
                distances=tuple(sorted(d for d in known if d is not None)),
                count=len(deps),
                assumed=any(not d.exact for d in deps),
            )
        )
    return tuple(out)


def _names(reason: Obstacle) -> str:
    """`a` may alias `b`: the first two names the aliasing refusal quotes."""
    names = list(dict.fromkeys(re.findall(r"`([^`]+)`", reason.message)))
    if reason.variable and reason.variable not in names:
        names.insert(0, reason.variable)
    if len(names) >= 2:
        return f"`{names[0]}` may alias `{names[1]}`"
    return f"`{names[0]}` may alias" if names else "pointers may alias"


_SHORT: dict[ObstacleCode, str] = {
    ObstacleCode.ALIAS: "pointers may overlap",
    ObstacleCode.AMBIGUOUS: "function defined twice",
    ObstacleCode.BOUND: "bound changes in the body",
    ObstacleCode.CALL: "a call with unknown effects",
    ObstacleCode.CLASS_PRIVATE: "a class with no default constructor",
    ObstacleCode.CONDITIONAL_INDUCTION: "a counter advanced conditionally",
    ObstacleCode.CONDITIONAL_LAST: "written conditionally, used after",
    ObstacleCode.DEPENDENCE: "a carried dependence",
    ObstacleCode.EXIT: "leaves the loop early",
    ObstacleCode.EXTENT: "an access outside its extent",
    ObstacleCode.INDUCTION: "the loop variable changes in the body",
    ObstacleCode.INDUCTION_VARIABLE: "a counter (rewritable)",
    ObstacleCode.INTERNAL: "the analysis failed",
    ObstacleCode.MEMBER_WRITE: "a member written every iteration",
    ObstacleCode.OPAQUE: "nested too deeply",
    ObstacleCode.POINTER: "writes through a re-pointed pointer",
    ObstacleCode.ROUNDING: "a `float` total",
    ObstacleCode.SCALAR_CARRIED: "a scalar carried",
    ObstacleCode.SHAPE: "not a canonical loop",
    ObstacleCode.STATIC: "a `static` inside",
    ObstacleCode.SYNTAX: "a syntax error",
    ObstacleCode.TOO_LARGE: "too large to analyse",
    ObstacleCode.UNBOUNDED: "no bound",
    ObstacleCode.VOLATILE: "writes a `volatile`",
    ObstacleCode.WIDE: "a total over eight bytes",
}


def short_title(decision: Decision, facts: LoopFacts, ready: str = "") -> str:
    """One short line for a code lens or a table cell.

    `ready` names the model whose pragma is ready ("OpenMP"), if one is.
    """
    verdict = decision.verdict
    if verdict is Verdict.PARALLEL:
        return f"parallel · {ready} ready" if ready else "parallel"
    if verdict is Verdict.SMALL and decision.cost:
        return f"parallel · not worth it ({decision.cost.split(':')[0]})"
    if verdict is Verdict.SMALL:
        return f"parallel · small ({decision.trip_count} iterations)"
    if verdict is not Verdict.SERIAL:
        return verdict.value
    reason = decision.reason
    if reason is None:
        return "serial"
    line = f" (line {reason.line})" if reason.line else ""
    var = f"`{reason.variable}` " if reason.variable else ""
    if reason.code is ObstacleCode.ALIAS:
        return f"serial: {_names(reason)} (add restrict)"
    if decision.fix is FixKind.INDUCTION:
        names = ", ".join(f"`{found.name}`" for found in facts.inductions)
        return f"serial: counter {names} (rewrite in closed form)"
    if reason.code in (ObstacleCode.SCALAR_CARRIED, ObstacleCode.DEPENDENCE) and var:
        return f"serial: {var}carried{line}"
    if reason.code is ObstacleCode.CALL and var:
        return f"serial: calls `{reason.variable}()`{line}"
    return f"serial: {_SHORT.get(reason.code, reason.code.value)}{line}"
