"""Member writes a callee makes through its pointer parameters one call deeper.

`annotate(n)` ending in `finish_node(n)`, whose `p->height = ...` writes the
object its argument points to, writes `n->height` as surely as if it wrote it
itself: the call runs on every path (no `if` arm holds it), passes the
parameter (or a path of pointer members from it, `n->left`) unchanged, and the
deeper function never moves its own pointer. The writes keep their own lines;
their names are the callee's (`n->height`), ready for the caller's renaming.
Member paths `p->a->b` are followed as written, through pointer members only.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.frontend import Function, Ref, SourceFile

__all__ = ["MEMBER_PATH", "deep_member_writes"]

MEMBER_PATH = re.compile(r"[A-Za-z_]\w*(?:->[A-Za-z_]\w*)*")
"""A member, or a path of members through pointers: `height`, `left->height`."""


def _unbranched(fn: Function, pos: int, source: SourceFile) -> bool:
    return not any(
        b.kind != "loop"
        and fn.span.start_byte <= b.span.start_byte <= pos
        and pos < b.span.end_byte
        for b in source.branches
    )


def deep_member_writes(callee: Function, source: SourceFile) -> list[Ref]:
    """The member writes of `callee`'s calls through its parameters, renamed."""
    params = {p.name for p in callee.params if p.pointers == 1}
    out: list[Ref] = []
    for call in callee.call_sites:
        inner = source.function(call.name)
        if inner is None or inner is callee:
            continue
        if not _unbranched(callee, call.span.start_byte, source):
            continue  # an `if` arm: the call may not run
        for k, arg in enumerate(call.args[: len(inner.params)]):
            param = inner.params[k]
            text = "".join(arg.split())
            if param.pointers != 1 or not MEMBER_PATH.fullmatch(text):
                continue
            if text.split("->")[0] not in params:
                continue
            if any(r.name == param.name and r.is_write for r in inner.refs):
                continue  # the deeper function moves its pointer
            head = f"{param.name}->"
            for ref in inner.refs:
                if not (ref.is_write and ref.member and ref.name.startswith(head)):
                    continue
                rest = ref.name[len(head) :]
                if not MEMBER_PATH.fullmatch(rest) or ref.deref or ref.subscripts:
                    continue
                out.append(replace(ref, name=f"{text}->{rest}"))
    return out
