"""A struct pointer parameter used only through its members: the element `p[0]`.

`void push(struct body *p, double h) { p->x += h * p->v; }` touches only the
struct `p` points to: called as `push(&bodies[i], h)` it updates `bodies[i]`
and nothing else, the way `set(&a[i])` with `*p = ..` updates `a[i]`
(callee_slices). A member access counts when the path leaves the parameter
with `->` once and goes on through embedded members only (`p->pos.x`,
`p->f[k]` of an array member), and no member on the way is a pointer, not
even read (`q = p->next` would let the callee write elsewhere through it):
the bytes it reaches then lie inside `*p`. Its address must not be taken.
Handed on whole (`energy(p)`) to a function of the file that uses its
parameter the same way, the uses of that function count too.
"""

from __future__ import annotations

import re

from accls.analysis.access_paths import member_levels
from accls.frontend import Call, Function, Ref, SourceFile, Var

__all__ = ["inside_element", "passed_whole"]

_STEP = re.compile(r"(->|\.)")


def inside_element(ref: Ref, param: Var, fn: Function, source: SourceFile) -> bool:
    """Whether `ref` is a member of `*param` that lies inside it (`p->x`)."""
    parts = _STEP.split(ref.name)
    if len(parts) < 3 or parts[0].strip() != param.name or parts[1] != "->":
        return False
    if any(step != "." for step in parts[3::2]):
        return False  # `p->next->x`: through a pointer member, outside `*p`
    if ref.escapes or ref.into or ref.copies or ref.deref:
        return False
    levels = member_levels(ref.name, fn, source.globals, source.types)
    if levels is None or "*" in levels:
        return False  # a pointer member: what it leads to lies elsewhere
    return len(ref.subscripts) <= levels.count("[")


def passed_whole(fn: Function, name: str) -> list[tuple[Call, int]]:
    """The calls of `fn` that pass `name` itself, with the argument's position."""
    return [
        (call, index)
        for call in fn.call_sites
        for index, arg in enumerate(call.args)
        if arg.strip() == name
    ]
