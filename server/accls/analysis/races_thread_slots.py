"""Updates `part[f(t)]` of a worksharing loop, `t` the thread number: slots shared.

A slot picked from the thread number (`slot = omp_get_thread_num() % NSLOTS`)
is a thread's own only while `f` is one to one over the team. With the team's
size a literal (`num_threads(8)`), `f` is tried on every thread number: two
threads that get one slot both update it from the iterations they run, and a
loop of at least as many iterations as the team has threads can hand an
iteration to each (a static schedule does).
"""

from __future__ import annotations

import re

from accls.analysis.races_index import literal_value, loop_range, value_at
from accls.analysis.races_mask import once_per_iteration
from accls.frontend import Loop, Ref, Region, SourceFile

__all__ = ["team_region", "thread_owned", "thread_slot_collision"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_CALL = re.compile(r"\bomp_get_thread_num\s*\(\s*\)")
_TID = "tid__"
_OPS = re.compile(r"[%/&|^<>]")
_TEAM_MAX = 256


def thread_slot_collision(ref: Ref, loop: Loop, source: SourceFile) -> str:
    """Why two threads of a `num_threads(K)` team surely update one `a[f(t)]`."""
    if (
        ref.atomic
        or len(ref.subscripts) != 1
        or not once_per_iteration(ref, loop, source)
    ):
        return ""
    region = team_region(loop, source)
    clause = region.directive.clause("num_threads") if region else None
    team = literal_value(clause.args or "", source) if clause else None
    if region is None or clause is None or team is None or not 1 < team <= _TEAM_MAX:
        return ""
    span = loop_range(loop, source)
    if span is not None and len(span) < team:
        return ""  # too few iterations to reach every thread
    text = _slot_text(ref.subscripts[0].text, loop, region, source)
    values = _values(text, team, source) if text is not None else None
    if values is None:
        return ""
    seen: dict[int, int] = {}
    for me, value in enumerate(values):
        if value in seen:
            return (
                f"`{ref.render()}` (line {ref.span.line}) picks its element from "
                f"the thread number: threads {seen[value]} and {me} of the "
                f"`num_threads({(clause.args or '').strip()})` team both update "
                f"element {value}"
            )
        seen[value] = me
    return ""


def thread_owned(text: str, loop: Loop, source: SourceFile) -> bool:
    """True when the subscript `text` is a one-to-one function of the thread number.

    With a literal team size every thread number is tried; without, only an
    affine `a * t + b` (a nonzero) is one to one whatever the team's size.
    """
    region = team_region(loop, source)
    found = _slot_text(text, loop, region, source) if region else None
    if region is None or found is None:
        return False
    clause = region.directive.clause("num_threads")
    team = literal_value(clause.args or "", source) if clause else None
    if team is not None and 0 < team <= _TEAM_MAX:
        values = _values(found, team, source)
        return values is not None and len(set(values)) == len(values)
    if clause is not None or _OPS.search(found):
        return False
    values = _values(found, _TEAM_MAX, source)
    if values is None:
        return False
    slope = values[1] - values[0]
    return slope != 0 and all(v == values[0] + slope * t for t, v in enumerate(values))


def _values(text: str, team: int, source: SourceFile) -> list[int] | None:
    """The subscript's value for each thread number of the team, or None."""
    values = [value_at(text, _TID, me, source) for me in range(team)]
    known = [v for v in values if v is not None]
    return known if len(known) == len(values) else None


def team_region(loop: Loop, source: SourceFile) -> Region | None:
    """The innermost `parallel` construct around the loop."""
    around = [
        c
        for c in source.constructs
        if c.directive.dialect == "omp"
        and c.directive.name.split()[:1] == ["parallel"]
        and c.span.start_byte <= loop.span.start_byte < c.span.end_byte
    ]
    return max(around, key=lambda c: c.span.start_byte, default=None)


def _slot_text(text: str, loop: Loop, region: Region, source: SourceFile) -> str | None:
    """The subscript in terms of the thread number alone, or None.

    A name is replaced by the one value it is given in the team's region
    (`int slot = omp_get_thread_num() % 4;`), when the loop never writes it.
    """
    text = _CALL.sub(_TID, text)
    fn = source.function(loop.function) if loop.function else None
    if fn is None:
        return None
    written = {r.name for r in loop.refs if r.is_write}
    body = source.data[region.span.start_byte : region.span.end_byte].decode(
        "utf-8", "replace"
    )
    for name in set(_NAME.findall(text)) - {_TID}:
        if literal_value(name, source) is not None:
            continue
        sets = re.findall(rf"\b{re.escape(name)}\s*=(?!=)\s*([^;]*);", body)
        # a local of the region (each thread its own), set there once
        local = [
            v
            for v in fn.locals
            if v.name == name
            and v.span is not None
            and region.span.start_byte <= v.span.start_byte < region.span.end_byte
        ]
        stores = [r for r in fn.refs if r.name == name and r.is_write]
        if name in written or len(sets) != 1 or len(local) != 1 or len(stores) > 1:
            return None
        value = _CALL.sub(_TID, sets[0])
        if _TID not in value:
            return None
        text = re.sub(rf"\b{re.escape(name)}\b", f"({value})", text)
    return text if _TID in text else None
