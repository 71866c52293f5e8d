"""Scalar members that are memory of a larger object, not variables of their own.

A scalar reference `s.f` is a variable of the loop's own (privatized, reduced,
or shared), except where its bytes may lie in memory the loop reaches by other
names: a field through a pointer (`p->f`, `a[i].q->f`: `p == &a[1]` may hold)
or a member of a union (`c[l].o.x` is `c[l].o.d[0]` of `union { double d[4];
double x; }`). Those the aliasing checks compare with every array of the loop.
"""

from __future__ import annotations

from accls.analysis.access_paths import target_of
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["shared_member"]


def shared_member(
    ref: Ref, fn: Function | None, source: SourceFile, loop: Loop
) -> bool:
    """Whether the scalar member `ref` may share its bytes with another name's.

    A union declared in the loop's body is each iteration's own: its members
    meet only inside one iteration.
    """
    if not ref.member:
        return False
    if "->" in ref.name:
        return True
    target = target_of(ref, fn, source.globals, source.types)
    if not target.union or target.root is None:
        return False
    span = target.root.span
    inside = span is not None and (
        loop.body.start_byte <= span.start_byte < loop.body.end_byte
    )
    return not inside
