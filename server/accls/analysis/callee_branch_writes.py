"""A callee's write under `if` arms that test memory only: tested as if always.

`cswap(v, i, j)` writes `v[i]` and `v[j]` only when `v[i] > v[j]`: which
calls write depends on the data (a parameter inside a subscript only picks
the element tested), as in the loop's own `if (a[i] > 0)`, so the
dependence test may take the write as made on every call (one dependence more
at worst; its branches stay in its context, so it covers no read). A test of
a scalar parameter (`if (b == 0)` called as `c(i)`) picks iterations instead,
which the loop's own code shows the checks (`if (i == 0)`: one iteration) but
an inlined copy cannot: such a write, or one under `?:`, `&&` or `||` outside
any arm, is not inlined.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Ref, SourceFile

__all__ = ["data_guarded_write"]

_WORD = re.compile(r"[A-Za-z_]\w*")


def data_guarded_write(ref: Ref, callee: Function, source: SourceFile) -> bool:
    """Whether every arm around `ref` in `callee` tests no scalar parameter."""
    start, end = callee.span.start_byte, callee.span.end_byte
    arms = [
        b
        for b in source.branches
        if start <= b.span.start_byte < end
        and b.kind in ("if", "else")
        and b.span.start_byte <= ref.span.start_byte < b.span.end_byte
    ]
    if not arms:
        return False  # guarded by `?:`, `&&` or `||`: not an arm's test
    values = {p.name for p in callee.params if not (p.pointers or p.dims or p.levels)}
    return all(
        not values & set(_WORD.findall(_unindexed(arm.condition))) for arm in arms
    )


def _unindexed(text: str) -> str:
    """`text` without what its subscripts hold: `v[i] > v[j]` is `v[] > v[]`."""
    out, depth = [], 0
    for char in text:
        depth -= char == "]"
        if depth == 0:
            out.append(char)
        depth += char == "["
    return "".join(out)
