"""The read of a pointer that an access through it makes: `p->val` reads `p`.

`for (p = head; p; p = p->next)` / `#pragma omp task shared(p)` / `p->val *= 2;`:
the task reads the cursor `p` to find its node while the creating thread moves
it on, a race on `p` itself. The front end names such an access by its path
(`p->val`, `*p`) and records no read of the pointer variable, so the region's
accesses get one here: a plain read of `p`, at the access, for a variable
declared a pointer (not an array, whose `a->f` reads no variable).
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.frontend import AccessKind, Function, Ref, SourceFile

__all__ = ["pointer_reads"]

_ARROW = re.compile(r"([A-Za-z_]\w*)\s*->")


def _pointers(fn: Function, source: SourceFile) -> frozenset[str]:
    """Names the function sees declared as pointers (locals shadow globals)."""
    own = {v.name: v for v in (*fn.params, *fn.locals)}
    seen = [*own.values(), *(g for g in source.globals if g.name not in own)]
    return frozenset(v.name for v in seen if v.pointers > 0 and not v.dims)


def _base(ref: Ref) -> str:
    """The pointer variable an access goes through, or ""."""
    if ref.deref and not ref.subscripts and not ref.member:
        return ref.name
    arrow = _ARROW.match(ref.name) if ref.member else None
    return arrow.group(1) if arrow is not None and arrow.end() > 0 else ""


def pointer_reads(fn: Function, source: SourceFile) -> list[Ref]:
    """A read of the pointer for each access of `fn` through a pointer variable."""
    pointers = _pointers(fn, source)
    out: list[Ref] = []
    for ref in fn.refs:
        base = _base(ref)
        if not base or base not in pointers:
            continue
        out.append(
            replace(
                ref,
                name=base,
                kind=AccessKind.READ,
                subscripts=(),
                reduction=None,
                deref=False,
                member=False,
                atomic="",
                advance=None,
                escapes=False,
                into="",
                copies="",
                update_op="",
                field="",
            )
        )
    return out
