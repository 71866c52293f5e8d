"""Which elements an `update` syncs, and whether a later reference is provably not one.

`update self(r[0:1])` brings `r[0]` back, not `r[3]`: a host read of `r[3]` after
a kernel wrote `r` still reads the old copy. The check says so only when it can
show it: a 1-D section, a reference with one polynomial subscript, their
difference a constant, and nothing between the update and the reference changes
a symbol of either. Anything else counts as synced, as every update did before.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Poly, Ref
from accls.frontend.exprs import expression_poly

__all__ = ["Box", "item_box", "provably_outside"]

Box = tuple[int, Poly, Poly]  # (where the update is, start, length)

_SECTION = re.compile(r"^\s*[A-Za-z_]\w*\s*\[([^\[\]:]*):([^\[\]]*)\]\s*$")


def item_box(item: str, at: int) -> Box | None:
    """(at, start, length) of an update's `r[s:l]`; None for anything else."""
    match = _SECTION.match(item)
    if match is None:
        return None
    start = expression_poly(match.group(1)) if match.group(1).strip() else Poly.const(0)
    length = expression_poly(match.group(2))
    if start is None or length is None:
        return None
    return at, start, length


def _constant(poly: Poly) -> int | None:
    return poly.constant if poly.is_constant else None


def provably_outside(ref: Ref, box: Box, fn: Function) -> bool:
    """True when `ref`'s element lies outside the section the update at box[0] moved."""
    at, start, length = box
    if len(ref.subscripts) != 1 or ref.deref or ref.subscripts[0].indirect:
        return False
    index = ref.subscripts[0].poly
    if index is None:
        return False
    names = index.names() | start.names() | length.names()
    if any(
        at < r.span.start_byte < ref.span.start_byte
        and r.name in names
        and not r.subscripts
        and (r.is_write or r.escapes)
        for r in fn.refs
    ):
        return False  # a symbol changes between: the difference means nothing
    below = _constant(index - start)
    above = _constant(index - (start + length))
    return (below is not None and below < 0) or (above is not None and above >= 0)
