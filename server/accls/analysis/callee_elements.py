"""A callee that writes a global array where its arguments say: `set(i / 2, v)`.

`static void set(int k, int v) { g[k] = v; }` called once per iteration of a
parallel loop writes `g[e]` with `e` the subscript after the call's arguments
replace the parameters. When that value, built from the loop variable, integer
macros and literals, is the same for two iterations of a loop with known
bounds, two threads write one element: a race (ACC124). The write must run on
every call (no branch or OpenMP construct of the callee around it, not atomic).
A `task` (deferred or `if(0)`) or `taskgroup` around it is no exception: each
call makes its task once, which writes the element on some thread of the team
(an undeferred one at once, on the caller's), so two iterations' tasks race.
"""

from __future__ import annotations

import re

from accls.analysis.mhp_constructs import first_word
from accls.analysis.nest_views import integer_macros
from accls.analysis.races_index import int_at, loop_range
from accls.frontend import Call, Function, Loop, Ref, SourceFile

__all__ = ["element_collision"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_EXPR = re.compile(r"[\w\s+*/%()-]+")
_ONCE_PER_CALL = frozenset({"task", "taskgroup"})


def _plain_writes(callee: Function, source: SourceFile) -> list[Ref]:
    """Writes of global array elements that run on every call of the callee."""
    start, end = callee.span.start_byte, callee.span.end_byte
    own = {v.name for v in (*callee.locals, *callee.params)}
    arrays = {g.name for g in source.globals if g.dims and not g.pointers} - own
    around = [b.span for b in source.branches if start <= b.span.start_byte < end]
    around += [
        c.span
        for c in source.constructs
        if start <= c.span.start_byte < end and first_word(c) not in _ONCE_PER_CALL
    ]
    return [
        r
        for r in callee.refs
        if r.is_write
        and r.subscripts
        and r.name in arrays
        and not r.atomic
        and not any(s.start_byte <= r.span.start_byte < s.end_byte for s in around)
    ]


def element_collision(
    loop: Loop, call: Call, callee: Function, source: SourceFile
) -> tuple[Ref, int, int, str] | None:
    """(the write, two iterations, the element) when two iterations meet."""
    if loop.var is None or any(c.startswith("omp_") for c in callee.calls):
        return None
    span = loop_range(loop, source)
    if span is None:
        return None
    params = [p.name for p in callee.params]
    if len(call.args) != len(params):
        return None
    macros = {n: str(v) for n, v in integer_macros(source.macros).items()}

    def expand(text: str, names: dict[str, str]) -> str:
        return _NAME.sub(lambda m: names.get(m.group(0), m.group(0)), text)

    args = [f"({expand(a, macros)})" for a in call.args]
    values = macros | dict(zip(params, args, strict=True))
    for ref in _plain_writes(callee, source):
        texts = []
        for sub in ref.subscripts:
            # One pass: an argument's text is never substituted again.
            text = expand(sub.text, values)
            if not _EXPR.fullmatch(text) or set(_NAME.findall(text)) - {loop.var}:
                break
            texts.append(text)
        if len(texts) != len(ref.subscripts):
            continue
        seen: dict[tuple[int | None, ...], int] = {}
        for k in span:
            key = tuple(int_at(t, loop.var, k) for t in texts)
            if None in key:
                break
            if key in seen:
                element = "][".join(str(v) for v in key)
                return ref, seen[key], k, f"{ref.name}[{element}]"
            seen[key] = k
    return None
