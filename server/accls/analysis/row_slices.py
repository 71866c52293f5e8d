"""A fixed slice of one row: `norm3(&r[i][0])` with `double r[N][3]` reads `r[i][0..2]`.

A callee that reads its pointer parameter only at literal offsets `lo..hi`
(pointer_slices), passed the address `&r[i][c]` of an element of a row of
`double r[N][E]`, reads `r[i][c + lo]` to `r[i][c + hi]`: a slice of row `i`
when `0 <= c + lo` and `c + hi < E`, which range_arguments then models as the
loop's own read of those elements. A column that varies, an extent that is no
literal (or integer macro), pointers of rows, or a slice that leaves the row
(it would reach row `i + 1`) give None.
"""

from __future__ import annotations

from accls.analysis.callee_rows import extent_value
from accls.analysis.nest_views import integer_macros
from accls.frontend import Ref, SourceFile, Var

__all__ = ["row_room"]


def row_room(element: Ref, var: Var, source: SourceFile) -> tuple[int, int] | None:
    """(`c`, `E`) of the element `r[i][c]` of `var`, declared `T r[N][E]`, or None."""
    if len(element.subscripts) != 2 or var.pointers or len(var.dims) != 2:
        return None
    if var.unknown_shape or any(
        s.indirect or s.poly is None for s in element.subscripts
    ):
        return None
    column = element.subscripts[1].poly
    if column is None or not column.is_constant or column.constant < 0:
        return None
    extent = extent_value(var.dims[1], integer_macros(source.macros))
    return None if extent is None else (column.constant, extent)
