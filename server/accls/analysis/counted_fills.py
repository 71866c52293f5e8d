"""The elements a loop of literal bounds in a callee writes on every call.

`for (k = 0; k < 8; k++) c[k] = 0.0;` at the top of a function writes `c[0]`
to `c[7]`, each of them, whenever the function runs: the loop's bounds and
step are literals (counted_offsets), its step is one (no element skipped), the
write sits directly in its body (no branch around it, no inner loop), nothing
leaves the loop early (`break`, `return`, `goto`, a `continue` before the
write), and the loop itself runs on every call (callee_scratch). callee_fills
takes such a write as it takes `c[0] = ..; ..; c[7] = ..;` written out.
"""

from __future__ import annotations

import re

from accls.analysis.callee_scratch import unconditional
from accls.analysis.counted_offsets import counted_range, function_loops
from accls.frontend import Function, Ref, SourceFile

__all__ = ["counted_fill"]

_LEAVES = re.compile(r"\b(break|continue|return|goto|longjmp|exit|abort)\b")


def counted_fill(
    ref: Ref, fn: Function, source: SourceFile
) -> tuple[int, int, int] | None:
    """(first, last element, byte after the loop) a counted write fills, or None."""
    if ref.guarded or ref.atomic or len(ref.loops) != 1 or len(ref.subscripts) != 1:
        return None
    loop = function_loops(fn, source).get(ref.loops[0])
    if loop is None or ref.context != (loop.id,) or loop.step not in (1, -1):
        return None
    sub = ref.subscripts[0]
    if sub.indirect or sub.poly is None or not loop.var:
        return None
    if sub.poly.names() != {loop.var} or abs(sub.poly.coeff(loop.var)) != 1:
        return None  # `c[2*k]` skips elements
    if not unconditional(fn, loop.span.start_byte, source):
        return None
    if _LEAVES.search(source.code[loop.body.start_byte : loop.body.end_byte]):
        return None
    found = counted_range(sub.poly, ref, fn, {loop.id: loop})
    if found is None:
        return None
    return found[0], found[1], loop.span.end_byte
