"""An index array filled by a two-deep nest and read over each iteration's range.

`col[r * NNZ + k] = (r + k) % ROWS` stored under `for r` and `for k` (literal
bounds), then `y[col[k]] += ...` under `for (k = r * NNZ; k < (r + 1) * NNZ; k++)`
inside the parallel `for r`: the values `col` holds are computed by running the
filling nest, and each iteration's set of values by running its inner range.
Two iterations whose sets share a value update one element of `y`: a race.
Anything else (a guard, bounds not read, a value not stored) decides nothing.
"""

from __future__ import annotations

import re

from accls.analysis.races_index import loop_range, value_at
from accls.frontend import Loop, Ref, SourceFile

__all__ = ["nest_repeats"]

_INDEX = re.compile(r"([A-Za-z_]\w*)\[([A-Za-z_]\w*)\]")
_EXPR = re.compile(r"[\w\s+*/%()-]+")
_LIMIT = 1 << 16
"""Stores and reads enumerated at most."""


def nest_repeats(ref: Ref, loop: Loop, source: SourceFile) -> tuple[str, int] | None:
    """(the store's text, its line) when two iterations read one value of `idx`."""
    if len(ref.subscripts) != 1 or loop.var is None or ref.guarded:
        return None
    match = _INDEX.fullmatch("".join(ref.subscripts[0].text.split()))
    if match is None:
        return None
    index, var = match.group(1), match.group(2)
    inner = [c for c in loop.children if c.var == var]
    outer = loop_range(loop, source)
    if len(inner) != 1 or outer is None or len(outer) > _LIMIT or ref.atomic:
        return None
    if ref.loops[-1:] != (inner[0].id,):
        return None  # a loop between may not run: the read is not sure
    filled = _filled(index, loop, source)
    if filled is None:
        return None
    text, line, values = filled
    seen: dict[int, int] = {}
    for r in outer:
        span = _inner_range(inner[0], loop.var, r, source)
        if span is None or len(span) > _LIMIT:
            return None
        mine = set()
        for k in span:
            if k not in values:
                return None  # an element the nest does not store
            mine.add(values[k])
        for value in mine:
            if seen.setdefault(value, r) != r:
                return text, line
    return None


def _inner_range(inner: Loop, var: str, r: int, source: SourceFile) -> range | None:
    """The values the inner loop's variable takes in the outer iteration `r`."""
    if inner.step != 1 or inner.cond_op not in ("<", "<="):
        return None
    low = value_at(inner.lower_text, var, r, source)
    high = value_at(inner.upper_text, var, r, source)
    if low is None or high is None:
        return None
    return range(low, high + (inner.cond_op == "<="))


def _filled(
    index: str, loop: Loop, source: SourceFile
) -> tuple[str, int, dict[int, int]] | None:
    """The one store `idx[S] = F` in a two-deep nest before `loop`, and its values."""
    writes = [
        r for fn in source.functions for r in fn.refs if r.name == index and r.is_write
    ]
    if len(writes) != 1 or writes[0].guarded:
        return None
    at = writes[0].span.start_byte
    around = [
        lp
        for lp in source.loops()
        if lp.var
        and lp.function == loop.function
        and lp.body.start_byte <= at < lp.body.end_byte
        and lp.span.end_byte <= loop.span.start_byte
    ]
    if len(around) != 2:
        return None
    first, second = sorted(around, key=lambda lp: lp.span.start_byte)
    body = source.data[second.body.start_byte : second.body.end_byte].decode(
        "utf-8", "replace"
    )
    store = re.search(rf"\b{re.escape(index)}\s*\[([^\[\]=;]+)\]\s*=\s*([^;=]+);", body)
    outer, inner = loop_range(first, source), loop_range(second, source)
    if store is None or outer is None or inner is None or first.var is None:
        return None
    if second.var is None or len(outer) * len(inner) > _LIMIT:
        return None
    where, what = store.group(1).strip(), store.group(2).strip()
    if not (_EXPR.fullmatch(where) and _EXPR.fullmatch(what)):
        return None
    values: dict[int, int] = {}
    for r in outer:
        for k in inner:
            spot = _at(where, first.var, r, second.var, k, source)
            value = _at(what, first.var, r, second.var, k, source)
            if spot is None or value is None:
                return None
            values[spot] = value
    return f"{index}[{where}] = {what}", writes[0].span.line, values


def _at(
    text: str, one: str, r: int, two: str, k: int, source: SourceFile
) -> int | None:
    """`text` with `one = r` and `two = k`, macros folded."""
    return value_at(re.sub(rf"\b{re.escape(one)}\b", str(r), text), two, k, source)
