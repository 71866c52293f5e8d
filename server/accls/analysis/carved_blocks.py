"""Local pointers carved from one fresh allocation: the block they lie in.

`double *pool = malloc(..); double *hi = pool + n;` puts `hi` inside `pool`'s
block, which no array object and no pointer set before the allocation can
reach: `hi[i]` and a global `px[i]` never overlap. A pointer whose every value
comes, through local pointers only, from one fresh pointer lies in that block,
as long as neither it nor a pointer on the way has its address taken or is
stored where others could read it (then another pointer could be based on it
too). Whether two pointers carved from the block overlap is left to the ranges
(`buffer_offsets`).
"""

from __future__ import annotations

from accls.frontend import FROM_CALL, Function, Var

__all__ = ["carved_block"]

_DEPTH = 8  # chains of copies longer than this are not followed


def carved_block(root: Var, fn: Function | None) -> Var | None:
    """The one fresh local pointer whose block `root` points into, else None."""
    if fn is None or root.scope != "local" or root.fresh or not root.pointers:
        return None
    if root.static:
        return None  # it outlives the call: a caller may hold what it held
    if root.dims or root.address_taken or root.leaves or not root.sources:
        return None
    blocks: set[str] = set()
    seen: set[str] = set()
    todo = [(name, 0) for name in root.sources]
    while todo:
        name, depth = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = fn.lookup(name) if name != FROM_CALL else None
        if found is None or depth > _DEPTH or found.scope != "local":
            return None  # a call's value, a parameter or a global: anywhere
        if found.dims or not found.pointers or found.address_taken or found.static:
            return None
        if found.fresh:
            blocks.add(found.name)
            continue
        if found.leaves or not found.sources:
            return None
        todo.extend((n, depth + 1) for n in found.sources)
    if len(blocks) != 1:
        return None
    return fn.lookup(next(iter(blocks)))
