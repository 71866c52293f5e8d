"""Whether a `depend` list item names one object in every iteration around a task.

`#pragma omp task depend(inout: acc->sum)` made in a loop: when nothing in the
loops around the task changes `acc`, every instance names the same object, so
the instances run one at a time, as they do for `depend(inout: total)`. A
subscript, a base the loops write or declare (the loop variable included), or a
base whose address is taken (a callee could change it) names another object
per iteration, or may: then the instances are not known to be ordered.
"""

from __future__ import annotations

import re

from accls.analysis.counted_offsets import function_loops
from accls.frontend import AccessKind, SourceFile

__all__ = ["fixed_object"]

_PATH = re.compile(r"\*?([A-Za-z_]\w*)(?:(?:->|\.)[A-Za-z_]\w*)*")
"""`x`, `*p`, `p->f`, `s.f.g`: a variable, a pointee, a member path; no subscript."""


def fixed_object(item: str, pos: int, source: SourceFile) -> bool:
    """True if `item` (spaces removed) names one object in every iteration at `pos`."""
    if item.isidentifier():
        return True
    path = _PATH.fullmatch(item)
    if path is None:
        return False
    base = path.group(1)
    fn = next(
        (f for f in source.functions if f.span.start_byte <= pos < f.span.end_byte),
        None,
    )
    if fn is None:
        return False
    around = [
        loop
        for loop in function_loops(fn, source).values()
        if loop.span.start_byte <= pos < loop.span.end_byte
    ]
    if any(
        loop.var == base or any(v.name == base for v in loop.locals) for loop in around
    ):
        return False
    for ref in fn.refs:
        if ref.name != base:
            continue
        if ref.escapes:
            return False
        moved = ref.kind is not AccessKind.READ and not (ref.deref or ref.member)
        if moved and any(
            loop.span.start_byte <= ref.span.start_byte < loop.span.end_byte
            for loop in around
        ):
            return False
    return True
