"""Loops that deal iterations to the threads in turn: `for (i = t; i < N; i += n)`.

With `t = omp_get_thread_num()` and `n = omp_get_num_threads()`, thread `t` runs
`i = t, t + n, t + 2n, ...` below a known `N`. Every thread whose number is below
`N` runs the body at least once, so the header is no doubt about which threads
run it, and the values of `i` each thread takes are known for a team size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.mhp_block_bounds import bound_at, expand_bound
from accls.analysis.mhp_block_helpers import (
    TEAM_SIZE,
    THREAD_NUMBER,
    inline_block_helpers,
    team_calls,
)
from accls.analysis.nest_views import integer_macros
from accls.frontend import Region, SourceFile

__all__ = ["Blocked", "Cyclic", "block_at", "blocked_loops", "cyclic_loops"]


@dataclass(frozen=True, slots=True)
class Cyclic:
    """One dealing loop: its variable, body start, and one past its last value.

    `alone` when no other loop of the region has its variable's name: a
    subscript's variable is then this loop's; else only within `body` to `end`,
    when no loop of the name is nested inside (`nested`).
    """

    var: str
    body: int
    stop: int
    alone: bool = True
    end: int = 0
    nested: bool = False

    def names(self, pos: int | None) -> bool:
        """True when the variable at `pos` (None: anywhere) is this loop's."""
        inside = pos is not None and self.body <= pos < self.end
        return self.alone or (inside and not self.nested)


def cyclic_loops(
    region: Region, source: SourceFile, tids: frozenset[str], sizes: frozenset[str]
) -> tuple[Cyclic, ...]:
    """The region's loops from a thread number by the team size to a known bound."""
    if (
        not tids
        and THREAD_NUMBER.encode()
        not in source.data[region.span.start_byte : region.span.end_byte]
    ):
        return ()
    constants = integer_macros(source.macros)
    start, end = region.span.start_byte, region.span.end_byte
    loops = [lp for lp in source.loops() if start <= lp.id < end and lp.var]
    out: list[Cyclic] = []
    for loop in loops:
        upper = loop.upper_text.strip()
        stop = int(upper) if upper.isdigit() else constants.get(upper)
        if stop is None or loop.cond_op not in ("<", "<="):
            continue
        lower = team_calls(loop.lower_text).strip()
        step = loop.step_symbol or team_calls(loop.step_text).strip()
        if lower not in tids | {THREAD_NUMBER} or step not in sizes | {TEAM_SIZE}:
            continue
        inside = loop.body.start_byte
        head = source.data[loop.span.start_byte : inside].decode("utf-8", "replace")
        if not re.search(rf"\(\s*[A-Za-z_][\w\s]*\s\b{loop.var}\s*=", head):
            continue  # `for (int i = ...`: no access outside the loop sees `i`
        if any(
            r.name == loop.var and r.is_write
            for r in loop.refs
            if r.span.start_byte >= inside
        ):
            continue
        if loop.var is not None:
            same = [lp for lp in loops if lp.var == loop.var and lp is not loop]
            out.append(
                Cyclic(
                    loop.var,
                    inside,
                    stop + (loop.cond_op == "<="),
                    alone=not same,
                    end=loop.span.end_byte,
                    nested=any(inside <= lp.id < loop.span.end_byte for lp in same),
                )
            )
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Blocked:
    """A loop over a block of the thread's own: `for (i = lo; i < hi; i++)`.

    `lo` and `hi` set once from the thread number, the team size, literals and
    macros (`lo = 1 + t * N / nt`): `first` and `stop` are those expressions,
    `full` whether every thread of every team the region may have gets a block
    that is not empty.
    """

    var: str
    body: int
    first: str
    stop: str
    full: bool


def blocked_loops(
    region: Region, source: SourceFile, tids: frozenset[str], sizes: frozenset[str]
) -> tuple[Blocked, ...]:
    """The region's unit-step loops over blocks computed from the thread number."""
    start, end = region.span.start_byte, region.span.end_byte
    raw = source.data[start:end]
    if len(tids) > 1 or not (tids or THREAD_NUMBER.encode() in raw):
        return ()
    if not (sizes or TEAM_SIZE.encode() in raw):
        return ()
    constants = integer_macros(source.macros)
    text = team_calls(raw.decode("utf-8", "replace"))
    text = inline_block_helpers(text, source, constants)
    loops = [lp for lp in source.loops() if start <= lp.id < end and lp.var]
    clause = region.directive.clause("num_threads")
    size = (clause.args or "").strip() if clause is not None else ""
    size = str(constants.get(size, size))  # `num_threads(T)`, `T` a macro
    if clause is not None and not size.isdigit():
        return ()
    teams = [int(size)] if size else list(range(2, 9))
    tid = next(iter(tids), THREAD_NUMBER)
    found: dict[str, list[Blocked]] = {}
    for loop in loops:
        if loop.var is None or loop.step != 1 or loop.cond_op not in ("<", "<="):
            continue
        lower, upper = team_calls(loop.lower_text), team_calls(loop.upper_text)
        first = expand_bound(lower, text, tid, sizes, constants)
        stop = expand_bound(upper, text, tid, sizes, constants)
        if first is None or stop is None:
            continue
        if not {tid, THREAD_NUMBER} & set(_NAME.findall(first + stop)):
            continue
        if loop.cond_op == "<=":
            stop = f"({stop}) + 1"
        inside = loop.body.start_byte
        head = source.data[loop.span.start_byte : inside].decode("utf-8", "replace")
        if not re.search(rf"\(\s*[A-Za-z_][\w\s]*\s\b{loop.var}\s*=", head):
            continue  # `for (int i = ...`: no access outside the loop sees `i`
        if any(
            r.name == loop.var and r.is_write and r.span.start_byte >= inside
            for r in loop.refs
        ):
            continue  # the body moves the variable
        full = all(
            (lo := bound_at(first, tid, sizes, me, team)) is not None
            and (hi := bound_at(stop, tid, sizes, me, team)) is not None
            and lo < hi
            for team in teams
            for me in range(team)
        )
        found.setdefault(loop.var, []).append(
            Blocked(loop.var, loop.body.start_byte, first, stop, full)
        )
    out: list[Blocked] = []
    for var, blocks in found.items():
        same = {(b.first, b.stop) for b in blocks}
        if len(same) == 1 and sum(lp.var == var for lp in loops) == len(blocks):
            out.extend(blocks)  # every loop of the name walks the same block
    return tuple(out)


_NAME = re.compile(r"[A-Za-z_]\w*")


def block_at(
    block: Blocked, tid: str, sizes: frozenset[str], me: int, team: int
) -> range | None:
    """The values thread `me` of a team of `team` gives the block's variable."""
    lo = bound_at(block.first, tid, sizes, me, team)
    hi = bound_at(block.stop, tid, sizes, me, team)
    return None if lo is None or hi is None else range(lo, hi)
