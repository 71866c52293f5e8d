"""`f(&a[idx[i]])` reads `a` when the callee only reads through that parameter.

The front end records `&a[e]` as an update of `a`: the address escapes, and a
callee may write the element through it. Handed straight to a function of this
file (one definition) that only reads through the parameter, never writes
through it, copies, stores or returns it, nor hands it to another call, the
call cannot write `a[e]`: the argument is a read of `a`. An index read from
memory (`&adj[rowptr[v]]`, one row of a CSR graph given to an intersection)
then no longer looks like a scatter.
"""

from __future__ import annotations

from accls.analysis.passed_pointers import callee_reads_only
from accls.frontend import AccessKind, Loop, Ref, SourceFile

__all__ = ["read_only_argument"]


def _folded(text: str) -> str:
    return "".join(text.split())


def read_only_argument(
    ref: Ref, loop: Loop, source: SourceFile, pure: frozenset[str]
) -> bool:
    """Whether `ref`, an escaping `&a[e]`, is an argument only read through."""
    if ref.kind is not AccessKind.UPDATE or not ref.escapes or not ref.subscripts:
        return False
    if ref.into or ref.deref or ref.member:
        return False
    want = "&" + _folded(ref.render())
    start = ref.span.start_byte
    around = [c for c in loop.calls if c.span.start_byte <= start < c.span.end_byte]
    for call in around:
        positions = [i for i, a in enumerate(call.args) if _folded(a) == want]
        if positions:
            # The call taking the address whole decides; a call around it
            # receives that call's value, not the address.
            return callee_reads_only(call, positions, source, pure)
    return False
