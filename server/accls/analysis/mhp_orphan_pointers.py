"""Pointer parameters of a function that makes orphaned tasks: one target for all.

In a function that makes tasks outside any parallel region of its own, each task
gets a `firstprivate` copy of a parameter, holding the creator's value. When the
function never sets the parameter (nor takes its address), every copy points
where the creator's does: `n->left->height` in a task and in the code after it
is one location, and the copies' privacy does not part them.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Ref

__all__ = ["member_through_copy", "orphan_pointer_params"]

_BASE = re.compile(r"([A-Za-z_]\w*)\s*->")


def orphan_pointer_params(fn: Function) -> frozenset[str]:
    """The pointer parameters `fn` never sets and whose address it never takes."""
    out: set[str] = set()
    for param in fn.params:
        var = fn.lookup(param.name)
        if var is None or var.pointers < 1 or var.dims or var.address_taken:
            continue
        if fn.declarations(param.name) != 1:
            continue  # shadowed by a local of the same name somewhere
        if any(
            r.name == param.name and r.is_write and not r.subscripts and not r.deref
            for r in fn.refs
        ):
            continue
        out.add(param.name)
    return frozenset(out)


def member_through_copy(ref: Ref, copied: frozenset[str]) -> bool:
    """True for `p->a` (or `p->q->a`) with `p` a pointer whose copies share a target."""
    if not ref.member or ref.subscripts or ref.escapes:
        return False
    base = _BASE.match(ref.name)
    return base is not None and base.group(1) in copied
