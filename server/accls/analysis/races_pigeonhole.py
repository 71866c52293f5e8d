"""Updates `h[idx[i]]` of more iterations than `h` has elements: two surely meet.

An index read from data may keep every iteration on its own element, so an
update through it is a warning (ACC109), unless the loop runs more iterations
than the array has elements: every in-bounds index then repeats (an index out
of bounds is undefined behaviour already), and two iterations update one
element, a race. The loop's bounds must be literals or integer macros, the
update run once per iteration (no branch or inner loop around it), and the
array one object of a constant extent: a declared array, or an array field of
a record reached through a pointer the loop never sets (`h->sum` of `double
sum[NB]`).
"""

from __future__ import annotations

import re

from accls.analysis.races_index import literal_value, loop_range
from accls.analysis.races_mask import once_per_iteration
from accls.frontend import Loop, Ref, SourceFile, Var

__all__ = ["extent_collision"]

_STEP = re.compile(r"\s*(?:->|\.)\s*")


def extent_collision(ref: Ref, loop: Loop, source: SourceFile) -> str:
    """Why two iterations surely update one element of a small array, or ""."""
    if ref.atomic or len(ref.subscripts) != 1 or not ref.subscripts[0].indirect:
        return ""
    span = loop_range(loop, source)
    if span is None or not once_per_iteration(ref, loop, source):
        return ""
    extent = _extent(ref.name, loop, source)
    if extent is None or len(span) <= extent:
        return ""
    return (
        f"`{ref.render()}` (line {ref.span.line}) is one of the {extent} elements of "
        f"`{ref.name}`, and each of the loop's {len(span)} iterations updates one: "
        "two iterations update one element"
    )


def _extent(name: str, loop: Loop, source: SourceFile) -> int | None:
    """The constant element count of a one-dimensional array object `name`."""
    parts = _STEP.split(name.strip())
    if not all(p.isidentifier() for p in parts):
        return None
    moved = (r for r in loop.refs if r.name == parts[0] and not r.subscripts)
    if any(r.is_write and not r.deref for r in moved):
        return None  # the pointer moves: another array each time
    fn = source.function(loop.function)
    var: Var | None = fn.lookup(parts[0]) if fn is not None else None
    if var is None:
        var = next((g for g in source.globals if g.name == parts[0]), None)
    if var is not None and len(parts) == 1 and var.scope not in ("local", "global"):
        return None  # `int h[16]` as a parameter: the caller's array may be larger
    for field in parts[1:]:
        fields = source.types.fields_of(var.type) if var is not None else None
        var = fields.get(field) if fields is not None else None
    if var is None or len(var.dims) != 1 or var.pointers or var.dims[0] is None:
        return None
    return literal_value(var.dims[0], source)
