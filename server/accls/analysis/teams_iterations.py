"""The writes of a `distribute` loop that one iteration owns, or that iterations share.

A `distribute` loop runs each iteration once, in one team. A write indexed by the
distributed counter (`a[p]`) is that iteration's own: no other team writes it, so a
`critical` around it needs to exclude no other team. A write indexed only by values
the iteration computes (`hist[b]` with `int b = bin_of(v[p])` declared in the body)
may meet another iteration's write, run by another team; a `critical` around it
says its author expects such meetings, and it excludes one team's threads only.
"""

from __future__ import annotations

import re

from accls.analysis.mhp_constructs import contains
from accls.frontend import Function, Loop, Ref, Region, SourceFile

__all__ = ["distributed_loop", "iteration_owned", "iteration_values"]

_TEAM = re.compile(r"\bomp_get_team_num\s*\(")
_FROM_DATA = re.compile(r"[A-Za-z_]\w*\s*[(\[]")  # a call or an element read
_NAME = re.compile(r"[A-Za-z_]\w*")


def distributed_loop(dist: Region, source: SourceFile) -> Loop | None:
    """The loop a construct with `distribute` governs: its outermost loop."""
    inside = [lp for lp in source.loops() if contains(dist, lp.id)]
    return min(inside, key=lambda lp: lp.id, default=None)


def iteration_owned(ref: Ref, dist: Region, source: SourceFile) -> bool:
    """True if a subscript of `ref` is a one-to-one affine image of a counter.

    `a[p]`, `a[2 * p + 1]`, `a[p + off]` (`off` not written in the loop): each
    distributed iteration has its element; `a[p % 8]` is none of these.
    """
    loop = distributed_loop(dist, source)
    if loop is None:
        return False
    written = {r.name for r in loop.refs if r.is_write}
    for counter in _distributed_counters(dist, loop):
        form = re.compile(
            rf"^(?:\d+\s*\*\s*)?{re.escape(counter)}(?:\s*[+-]\s*(\w+))?$"
        )
        for sub in ref.subscripts:
            match = form.match(" ".join(sub.text.split()))
            if match is not None and match.group(1) not in written:
                return True
    return False


def _distributed_counters(dist: Region, loop: Loop | None) -> set[str]:
    """The counters the construct distributes: its loop's, and `collapse(k)`'s."""
    clause = dist.directive.clause("collapse")
    depth = (clause.args or "").strip() if clause is not None else "1"
    levels = int(depth) if depth.isdigit() else 1
    names: set[str] = set()
    while loop is not None and levels > 0:
        if loop.var is None:
            return set()  # a level without a counter: own nothing
        names.add(loop.var)
        levels -= 1
        loop = loop.children[0] if len(loop.children) == 1 else None
    return names if levels == 0 else set()


def iteration_values(
    ref: Ref, fn: Function, dist: Region, source: SourceFile
) -> set[str]:
    """Names in `ref`'s subscripts that are locals of one distributed iteration.

    Each is declared in the distributed loop's body, which never asks for the team
    number, and initialized from a call or an element read: its value comes from
    the iteration's data, not from the team (`int k = 4 * p + 1` is not one: an
    arithmetic image of the counter may well be each iteration's own).
    """
    loop = distributed_loop(dist, source)
    if loop is None:
        return set()
    body = source.data[loop.body.start_byte : loop.body.end_byte]
    if _TEAM.search(body.decode("utf-8", "replace")):
        return set()
    out: set[str] = set()
    for sub in ref.subscripts:
        for name in set(_NAME.findall(sub.text)):
            var = fn.lookup(name)
            if (
                var is not None
                and var.scope == "local"
                and not var.static
                and var.span is not None
                and loop.body.start_byte <= var.span.start_byte < loop.body.end_byte
                and _FROM_DATA.search(_initializer(var.span.start_byte, source))
            ):
                out.add(name)
    return out


def _initializer(start: int, source: SourceFile) -> str:
    """The declarator text from the name to its `;` or `,` (the initializer)."""
    text = source.data[start : start + 400].decode("utf-8", "replace")
    head = re.match(r"[A-Za-z_]\w*\s*=\s*([^;,]*)", text)
    return head.group(1) if head is not None else ""
