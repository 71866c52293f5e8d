"""Who runs a stretch of a parallel region: every thread, one thread, a loop."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.mhp_constructs import first_word, pragma_at
from accls.frontend import Region, Span

__all__ = ["ORPHAN", "Unit", "unit_of"]

ORPHAN = "tasks"
"""The name of the pseudo-region of a function that makes tasks on its own."""


@dataclass(frozen=True, slots=True)
class Unit:
    """Who runs a stretch of code: `team` (every thread), one thread, a loop."""

    kind: str  # "team", "single", "master", "section", "loop", "serial"
    id: int  # start byte of the construct, 0 for the team
    line: int = 0
    repeated: bool = False  # a nowait construct inside a loop of the region
    filter: str = "0"  # the thread a `masked` construct runs on
    nowait: bool = False
    word: str = ""  # the directive as written: `master`, `masked`, `sections`


def unit_of(region: Region, chain: list[Region], loops: list[Span]) -> Unit:
    """The innermost worksharing construct of the implicit task around an access."""
    unit = Unit("team", 0)
    words = set(region.directive.name.split())
    if ORPHAN in words:
        unit = Unit("serial", 0)
    elif words & {"master", "masked"}:
        unit = Unit("master", pragma_at(region), region.span.line)
    elif "single" in words:
        unit = Unit("single", pragma_at(region), region.span.line)
    for construct in chain:
        first = first_word(construct)
        if first in ("task", "taskloop"):
            break
        nowait = construct.directive.clause("nowait") is not None
        at = pragma_at(construct)
        repeated = nowait and any(
            pragma_at(region) < lp.start_byte <= at < lp.end_byte for lp in loops
        )
        line = construct.directive.span.line if construct.directive.span else 0
        if first in ("for", "loop"):
            unit = Unit("loop", pragma_at(construct), line, nowait=nowait)
        elif first == "single":
            unit = Unit("single", pragma_at(construct), line, repeated, nowait=nowait)
        elif first in ("master", "masked"):
            clause = construct.directive.clause("filter")
            which = (clause.args or "0").strip() if clause else "0"
            unit = Unit("master", pragma_at(construct), line, filter=which, word=first)
        elif first in ("section", "sections"):
            unit = Unit("section", pragma_at(construct), line, nowait=nowait)
    return unit
