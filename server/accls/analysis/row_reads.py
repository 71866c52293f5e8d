"""A row passed by value and read inside its extent: `norm3(f[i])` reads `f[i]`.

With `real3 *f` (`typedef double real3[3]`), the argument `f[i]` is the row the
front end recorded as the loop's read of `f[i]`, and the dependence test
compares that row, whole, with every other access of `f`. A callee that uses
its parameter only at literal offsets inside the row's known extent
(callee_slices: `p[0]`, `p[1]`, `p[2]`) reads nothing else of `f`, so the
call needs no other account: `f[i][0] = norm3(f[i])` carries no dependence,
`f[i][0] = norm3(f[i + 1])` does, and the test says so.

An offset past the extent (`p[3]` reaches the next row), an extent that is not
a literal, a callee that writes, or a parameter of another element type keeps
the call a read of the whole array.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from accls.analysis.access_paths import member_var
from accls.analysis.call_arguments import argument_ref
from accls.analysis.callee_rows import extent_value
from accls.analysis.callee_slices import unqualified
from accls.analysis.nest_views import integer_macros
from accls.analysis.pointer_slices import callee_slice
from accls.frontend import Call, Loop, Ref, SourceFile, TypeTable, Var

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["row_read"]

_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")


def _extents(var: Var, types: TypeTable) -> list[str | None] | None:
    """Each level of `var` with its typedef's, outermost first: an extent or None.

    None for a pointer level; None as a whole when a level is unknown.
    """
    more = types.levels_of(var.type)
    extra = types.dims_of(var.type)
    if more is None or extra is None or len(extra) != len(more):
        return None
    dims = iter((*var.dims, *extra))
    out: list[str | None] = []
    for level in var.shape + more:
        out.append(next(dims, None) if level == "[" else None)
    return out


def row_read(
    call: Call,
    index: int,
    loop: Loop,
    source: SourceFile,
    program: ProgramSummaries | None = None,
) -> Ref | None:
    """The loop's read of the row `a[i]` that argument `index` passes, or None.

    Only when the file's one `call.name` (or the program's, another file's:
    pointer_slices) reads that parameter at literal offsets within the row's
    literal extent, as elements of the row's type.
    """
    arg = call.args[index] if index < len(call.args) else ""
    ref = argument_ref(call, arg, loop.refs)
    if ref is None or ref.is_write or ref.escapes or ref.deref:
        return None
    if not _PATH.fullmatch(ref.name) or any(s.indirect for s in ref.subscripts):
        return None
    fn = source.function(loop.function)
    # `f` or a field `s->atoms->f`: the declaration of what is subscripted.
    var = member_var(ref.name, fn, source.globals, source.types)
    sliced = callee_slice(call, index, source, program)
    if var is None or sliced is None:
        return None
    low, high = sliced.low, sliced.high
    levels = _extents(var, source.types)
    if sliced.written or levels is None:
        return None
    if len(levels) != len(ref.subscripts) + 1 or levels[-1] is None:
        return None  # not a row of numbers: a table's pointer, or an element
    # A literal extent, or an integer macro's (`double r[N][DIM]`).
    extent = extent_value(levels[-1], integer_macros(source.macros))
    if extent is None or low < 0 or high >= extent:
        return None
    # The scalar of the row (`real3` is `double`), whatever levels it adds.
    element = source.types.element_scalar(var.type) or var.type
    if unqualified(element) != sliced.element:
        return None
    return ref
