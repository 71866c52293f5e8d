"""A callee's arrays reached through a structure pointer the region does not move.

`smooth_range(l, lo, mid)` in a `section`, with `l` a pointer the region never
sets and `void smooth_range(line_t *l, int lo, int hi) { double *a = l->a; ...
a[i] = ...; }`: the callee's `l->a`, and a local set once from it, are the
caller's `l->a`, one array for every thread that makes such a call.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Poly, SourceFile

__all__ = ["pointer_members"]

_ARROW = re.compile(r"([A-Za-z_]\w*)->([A-Za-z_]\w*)")
_INIT = re.compile(rb"\s*=\s*([A-Za-z_]\w*)\s*->\s*([A-Za-z_]\w*)\s*;")


def pointer_members(
    param: str, var: str, callee: Function, source: SourceFile, moved: set[str]
) -> dict[str, Poly | str]:
    """`p->a` and `double *a = p->a;` as the caller's `var->a`, for a fixed `var`.

    Neither the callee nor the region may set the member, nor the callee the
    parameter or the local past its initializer.
    """
    if var in moved or any(r.name == param and r.is_write for r in callee.refs):
        return {}
    out: dict[str, Poly | str] = {}
    for ref in callee.refs:
        match = _ARROW.fullmatch(ref.name) if ref.member else None
        if match is None or match.group(1) != param or not ref.subscripts:
            continue
        mine = f"{var}->{match.group(2)}"
        if mine not in moved and not _member_set(ref.name, callee):
            out[ref.name] = mine
    for local in callee.locals:
        if local.pointers != 1 or local.dims or local.span is None:
            continue
        init = _INIT.match(source.data, local.span.end_byte)
        if init is None or init.group(1).decode() != param:
            continue
        member = f"{param}->{init.group(2).decode()}"
        mine = f"{var}->{init.group(2).decode()}"
        writes = [
            r
            for r in callee.refs
            if r.name == local.name and r.is_write and not r.subscripts
        ]
        if len(writes) == 1 and mine not in moved and not _member_set(member, callee):
            out[local.name] = mine
    return out


def _member_set(name: str, callee: Function) -> bool:
    return any(r.name == name and r.is_write and not r.subscripts for r in callee.refs)
