"""A callee's writes of fixed members through a pointer the caller shares.

`apply_bc(f)` in a `single nowait` writes `p->u[0]` and `master`'s `set_dt(h)`
writes `p->dt`: with the caller's shared pointer for `p`, these are the caller's
`f->u[0]` and `h->dt`, which the region's other phases may read. Only members
with constant subscripts (or none) are followed: a write of `p->u[k]` names no
element the caller can compare, and is left to the tests that follow loops.
The pointer must be declared outside the region and not reassigned in it, so
that every thread's call reaches one object.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.mhp_deep_members import MEMBER_PATH, deep_member_writes
from accls.analysis.mhp_orphan_pointers import orphan_pointer_params
from accls.analysis.mhp_units import ORPHAN
from accls.frontend import Call, Function, Ref, Region, SourceFile

__all__ = ["caller_base", "member_writes"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_ADDRESS = re.compile(r"&\s*([A-Za-z_]\w*)")


def caller_base(arg: str, fn: Function, region: Region) -> str | None:
    """`f->` for a shared pointer `f`, `s.` for `&s`; None otherwise."""
    text = "".join(arg.split())
    address = _ADDRESS.fullmatch(text)
    path = text if address is None and MEMBER_PATH.fullmatch(text) else ""
    name = address.group(1) if address else path.split("->")[0]
    if not _NAME.fullmatch(name):
        return None
    var = fn.lookup(name)
    if var is None or var.span is None:
        return None  # a global pointer is left to the tests of globals
    start, end = region.span.start_byte, region.span.end_byte
    # In a function making orphaned tasks, its unmoved pointer parameters reach
    # one object from the creator and every task (`mhp_orphan_pointers`).
    orphan = region.directive.name.startswith(f"{ORPHAN} of ")
    if start <= var.span.start_byte < end and not (
        orphan and name in orphan_pointer_params(fn)
    ):
        return None  # a thread's own pointer may reach a thread's own object
    if address is None and var.pointers != 1:
        return None
    if any(
        r.name == name and r.is_write and start <= r.span.start_byte < end
        for r in fn.refs
    ):
        return None  # reassigned in the region: which object is unknown
    return f"{name}." if address else f"{path}->"


def member_writes(
    call: Call,
    callee: Function,
    fn: Function,
    region: Region,
    source: SourceFile | None = None,
) -> list[Ref]:
    """The callee's fixed member writes through pointer parameters, renamed.

    With `source`, those its calls make one level down (`mhp_deep_members`) too.
    """
    deep = deep_member_writes(callee, source) if source is not None else []
    out: list[Ref] = []
    for k, arg in enumerate(call.args[: len(callee.params)]):
        param = callee.params[k]
        if param.pointers != 1:
            continue
        base = caller_base(arg, fn, region)
        if base is None:
            continue
        if any(r.name == param.name and r.is_write for r in callee.refs):
            continue  # the callee moves its pointer
        head = f"{param.name}->"
        for ref in [*callee.refs, *deep]:
            if not (ref.is_write and ref.member and ref.name.startswith(head)):
                continue
            rest = ref.name[len(head) :]
            if not MEMBER_PATH.fullmatch(rest) or ref.deref:
                continue  # `p->a.b`, `*p->q`: not followed
            if any(s.poly is None or not s.poly.is_constant for s in ref.subscripts):
                continue
            out.append(replace(ref, name=base + rest))
    return out
