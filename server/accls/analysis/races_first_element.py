"""A write-write race proved at the first element an inner loop surely writes.

`for (k = 0; k < len; k++) s[k] = ...` with `len = W * (1 + i % 3)` set in
each iteration: the exact test reads `len` as one symbol, so its verdict on
`s[k]` is in doubt. Yet where every iteration runs `k = 0` (its `len` is at
least 1, checked for each value of the parallel loop's variable) and the
dependence pairs the write with itself at the same `k` (direction `=`), the
iterations it pairs both write the element at `k = 0`: a race, whatever
`len` holds. Only the inner loops' variables may vary oddly, each a whole
subscript of its own, under no branch; the array's pointer stays put in them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from accls.analysis.model import Dependence, DepKind
from accls.analysis.races_index import loop_range, value_at
from accls.analysis.section_checks import runs_always
from accls.frontend import AccessKind, Loop, Ref, SourceFile, Span

__all__ = ["first_element_collision"]

_ASSIGN = re.compile(rb"\s*=\s*([^;,{}=][^;,{}]*);")


def first_element_collision(
    dep: Dependence,
    refs: Mapping[Span, Ref],
    loop: Loop,
    varying: set[str],
    source: SourceFile,
) -> str:
    """Why two iterations surely write one element, by the inner loops' first one.

    `varying`: the names whose value the exact test may misjudge (see races).
    """
    ref = refs.get(dep.source)
    if not dep.exact or dep.kind is not DepKind.OUTPUT or dep.source != dep.sink:
        return ""
    if ref is None or ref.atomic or not ref.subscripts or dep.carrier != loop.id:
        return ""
    outer = loop_range(loop, source)
    if loop.var is None or outer is None or not runs_always(ref, loop):
        return ""
    used = {n for s in ref.subscripts for n in re.findall(r"[A-Za-z_]\w*", s.text)}
    nest = {inner.id: inner for inner in loop.walk()}
    firsts: list[str] = []
    for name in sorted(used & varying):
        inner = next(
            (nest[i] for i in ref.loops if i in nest and nest[i].var == name), None
        )
        if inner is None or inner.id not in dep.loops:
            return ""
        level = dep.loops.index(inner.id)
        if dep.direction[level] != "=" or dep.distance[level] != 0:
            return ""
        if any(name in s.text and s.text.strip() != name for s in ref.subscripts):
            return ""  # the variable inside arithmetic: its first value may differ
        if any(
            r.name == ref.name
            and r.is_write
            and not r.subscripts
            and inner.id in r.loops
            for r in loop.refs
        ):
            return ""  # the array's pointer moves within the inner loop
        first = _first(inner, loop, outer, source)
        if first is None:
            return ""
        firsts.append(first)
    if not firsts:
        return ""
    return (
        f"every iteration writes `{ref.render()}` (line {ref.span.line}) at "
        f"{' and '.join(firsts)}, and two iterations meet at that element"
    )


def _first(inner: Loop, loop: Loop, outer: range, source: SourceFile) -> str | None:
    """`k = 0` where each iteration of `loop` runs `inner` at least once."""
    if inner.step != 1 or inner.cond_op not in ("<", "<=") or loop.var is None:
        return None
    bound = _per_iteration(inner.upper_text.strip(), inner, loop, source)
    if bound is None:
        return None
    least: int | None = None
    for value in outer:
        low = value_at(inner.lower_text, loop.var, value, source)
        high = value_at(bound, loop.var, value, source)
        if low is None or high is None:
            return None
        trips = high - low + (1 if inner.cond_op == "<=" else 0)
        if trips < 1:
            return None
        least = trips if least is None else min(least, trips)
    start = inner.lower_text.strip()
    return f"`{inner.var} = {start}` (its loop runs {least} times or more in each)"


def _per_iteration(
    text: str, inner: Loop, loop: Loop, source: SourceFile
) -> str | None:
    """The value text of the inner loop's bound: itself, or its one assignment.

    A name the iteration sets once, at its top level and before the inner
    loop (`int len = W * (1 + i % 3);`), stands for the text assigned.
    """
    writes = [r for r in loop.refs if r.name == text and not r.subscripts]
    if not text.isidentifier() or not writes:
        return text
    sets = [r for r in writes if r.is_write]
    if len(sets) != 1 or any(r.escapes for r in writes):
        return None
    write = sets[0]
    if write.kind is not AccessKind.WRITE or write.guarded or write.deref:
        return None
    at = write.context
    if loop.id not in at or at[at.index(loop.id) :] != (loop.id,):
        return None  # in a branch or an inner loop
    if write.span.end_byte > inner.span.start_byte:
        return None  # after the loop it bounds
    found = _ASSIGN.match(source.data, write.span.end_byte)
    return found.group(1).decode("utf-8", "replace").strip() if found else None
