"""Loops every thread runs over the whole team: `for (int u = 0; u < nt; u++)`.

With `nt = omp_get_num_threads()` (or the call itself as the bound) each thread
takes every value from the literal start to one below the team size, so an
access `slot[u]` in the body reaches every thread's slot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.mhp_block_helpers import TEAM_SIZE, team_calls
from accls.analysis.nest_views import integer_macros
from accls.frontend import Region, SourceFile

__all__ = ["TeamLoop", "team_loops"]


@dataclass(frozen=True, slots=True)
class TeamLoop:
    """One loop over the team: its variable, first value, body and end.

    The variable at a position is this loop's when no other loop of the region
    has its name (`alone`), or within the body when none of the name is nested.
    """

    var: str
    first: int
    body: int
    end: int
    alone: bool
    nested: bool

    def names(self, pos: int | None) -> bool:
        """True when the variable at `pos` (None: anywhere) is this loop's."""
        inside = pos is not None and self.body <= pos < self.end
        return self.alone or (inside and not self.nested)


def team_loops(
    region: Region, source: SourceFile, sizes: frozenset[str]
) -> tuple[TeamLoop, ...]:
    """The region's unit-step loops from a literal to below the team size."""
    start, end = region.span.start_byte, region.span.end_byte
    if not sizes and TEAM_SIZE.encode() not in source.data[start:end]:
        return ()
    constants = integer_macros(source.macros)
    loops = [lp for lp in source.loops() if start <= lp.id < end and lp.var]
    out: list[TeamLoop] = []
    for loop in loops:
        lower = loop.lower_text.strip()
        first = int(lower) if lower.isdigit() else constants.get(lower)
        upper = team_calls(loop.upper_text).strip()
        if first is None or loop.step != 1 or loop.cond_op != "<" or loop.var is None:
            continue
        if upper not in sizes | {TEAM_SIZE}:
            continue
        inside = loop.body.start_byte
        head = source.data[loop.span.start_byte : inside].decode("utf-8", "replace")
        if not re.search(rf"\(\s*[A-Za-z_][\w\s]*\s\b{loop.var}\s*=", head):
            continue  # `for (int u = ...`: no access outside the loop sees `u`
        if any(
            r.name == loop.var and r.is_write and r.span.start_byte >= inside
            for r in loop.refs
        ):
            continue  # the body moves the variable
        same = [lp for lp in loops if lp.var == loop.var and lp is not loop]
        stop = loop.span.end_byte
        nested = any(inside <= lp.id < stop for lp in same)
        out.append(TeamLoop(loop.var, first, inside, stop, not same, nested))
    return tuple(out)
