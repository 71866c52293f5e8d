"""Rows passed to callees: `zeroReal3(s->atoms->f[ii])` writes row `ii` of `f`.

`memcpy(&f[ii][0], ..)` passes the same row: `f[ii]` decays to `&f[ii][0]`, and
an address into the row lets the callee write only within it.

When `f` is an array of arrays (`real3 *f`, `double f[n][3]`), the argument
`f[ii]` is the storage of one row, and a callee that writes through that
parameter writes within the row (C forbids it to step outside). The reference
the front end recorded for the argument (a read of `f[ii]`) then becomes a
read-modify-write of the row, so the dependence test, the alias check and the
data clauses see the callee's effect like any other access: rows `ii` of two
iterations are disjoint, `f[ii]` and `f[ii + 1]` are not. A row of pointers
(`double **f`: `f[ii]` is a pointer read from memory) is left as it is: the
rows may overlap, and the call stays an obstacle.

A library copy (`memcpy`, `memmove`) moves what its size says: its destination
`&x[i][k]` (k a literal) is the row's write, and its source the row's read
(`library_row_read`), only when the size fits in the row from column `k`.
"""

from __future__ import annotations

from dataclasses import replace

from accls.analysis.access_paths import member_var, target_of
from accls.analysis.call_arguments import (
    address_row,
    argument_ref,
    element_address,
    promoted_row,
)
from accls.analysis.callee_rows import (
    callee_within_row,
    extent_value,
    typedef_extent,
)
from accls.analysis.nest_views import integer_macros
from accls.analysis.program import ProgramSummaries
from accls.analysis.row_sizes import within_row
from accls.analysis.summaries import Summary, summarize
from accls.analysis.variadic_calls import format_summary
from accls.frontend import (
    AccessKind,
    Call,
    Function,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Subscript,
    library_function,
)

__all__ = ["fresh_row", "is_row", "library_row_read", "promote_row_arguments"]


def is_row(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True when `ref` (`x[e]`) names an array element that is itself an array."""
    column = Subscript(text="0", poly=Poly.const(0))
    probe = replace(ref, subscripts=(*ref.subscripts, column), deref=False)
    fn = source.function(loop.function)
    target = target_of(probe, fn, source.globals, source.types)
    # Selectors count the subscripts that pick a pointer read from memory: with
    # none, `x[e][0]` lies in the storage `x[e]` names, so the row is one object.
    return target.kind != "unseen" and target.selectors == 0 and bool(target.element)


def fresh_row(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True when `ref` (`t[k]`) is a row of a table of fresh rows.

    Each row of such a table (`t[k] = malloc(..)`, here or in a row filler) is a
    block of its own, so a callee writing through `t[k]` writes within row `k`
    however far it goes (past the block is no defined program): the row is one
    object, as a row of an array of arrays is.
    """
    if len(ref.subscripts) != 1:
        return False
    column = Subscript(text="0", poly=Poly.const(0))
    probe = replace(ref, subscripts=(*ref.subscripts, column), deref=False)
    fn = source.function(loop.function)
    target = target_of(probe, fn, source.globals, source.types)
    root = target.root
    return (
        target.kind == "loaded"
        and target.selectors == 1
        and root is not None
        and root.fresh_rows
        and target.path == root.name
    )


def _row_writes(
    nest: Loop,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None,
) -> dict[int, Ref]:
    """The argument references a callee writes through, promoted, by start byte."""
    out: dict[int, Ref] = {}
    memo: dict[str, Summary | None] = {}
    fn = source.function(nest.function)
    macros = integer_macros(source.macros)
    for call in nest.calls:
        if call.name not in memo:
            memo[call.name] = summarize(call.name, source, pure, None, program)
        summary = memo[call.name] or format_summary(call, source, program)
        # A library function writes what its size says, not what C's rows allow.
        library = _library(call, source, program)
        source_index = _SIZED_SOURCES.get(call.name, -1)
        read = library_row_read(call, source_index, nest, source, program)
        if read is not None:  # `&x[i][0]` read as the row `x[i]`
            out[read.span.start_byte] = read
        for index in sorted(summary.writes if summary is not None else ()):
            if index >= len(call.args):
                continue
            ref = argument_ref(call, call.args[index], nest.refs)
            element = element_address(call, call.args[index], nest.refs)
            column: int | None = 0  # where in the row the argument points
            if ref is None and element is not None:
                # `&x[i][0]` is `x[i]` decayed: the callee writes within the row.
                row = replace(element, subscripts=element.subscripts[:-1])
                ref = replace(row, escapes=False, kind=AccessKind.READ)
                column = _column(element)
            if ref is None or ref.is_write or ref.escapes or ref.deref:
                continue
            if any(s.indirect for s in ref.subscripts):
                continue  # `f[idx[i]]`: rows picked by data, left to the reasons
            fresh = fresh_row(ref, nest, source)
            if not fresh and not is_row(ref, nest, source):
                continue
            if (
                not fresh
                and library
                and (
                    column is None
                    or not within_row(call, ref, fn, source, macros, column)
                )
            ):
                continue  # `memcpy(a[i], b, 2 * M * 8)` writes the next row too
            extent = _extent(ref, fn, source, macros)
            # `&x[i][1]`: the callee's `p[k]` is `x[i][1 + k]`; with a column
            # that varies, only `p[0]`, the element itself, is in the row.
            room = None if extent is None else 1 if column is None else extent - column
            if not (fresh or library) and not callee_within_row(
                call.name, index, room, source, macros, call.args, program
            ):
                continue  # `bump(a[i], 2 * M)` runs on into the next row
            out[ref.span.start_byte] = replace(ref, kind=AccessKind.UPDATE)
    return out


# Library calls that read a sized source: `memcpy(d, &x[i][1], n * sizeof x[0][0])`.
_SIZED_SOURCES = {"memcpy": 1, "memmove": 1}


def _library(call: Call, source: SourceFile, program: ProgramSummaries | None) -> bool:
    """Whether `call` is a library function's, not one the program defines."""
    header = source.headers.function(call.name) if source.headers else None
    return (
        source.function(call.name) is None
        and header is None
        and (program is None or not program.lookup(call.name))
        and library_function(call.name) is not None
    )


def library_row_read(
    call: Call,
    index: int,
    nest: Loop,
    source: SourceFile,
    program: ProgramSummaries | None = None,
) -> Ref | None:
    """The row `x[i]` a library copy reads through argument `index`, or None.

    `memcpy(d, x[i], M * sizeof(double))` or `memmove(.., &x[i][1], W * 8)` read
    within the row `x[i]` when the size fits in it from the column: the read is
    then the row's, which the dependence test compares like the loop's own.
    A size that runs on into the next row, a column that varies, a row of
    pointers, or a row picked by data is not one.
    """
    if _SIZED_SOURCES.get(call.name) != index or index >= len(call.args):
        return None
    if not _library(call, source, program):
        return None
    arg = call.args[index]
    ref = argument_ref(call, arg, nest.refs)
    if ref is not None and (ref.is_write or ref.escapes):
        return None  # `x[i]` itself written, or its address kept
    column: int | None = 0
    element = element_address(call, arg, nest.refs)
    if ref is None and element is not None:  # `&x[i][k]`: an escaping address
        ref = replace(element, subscripts=element.subscripts[:-1])
        column = _column(element)
    elif ref is None:  # already promoted: the row read, its column a literal
        ref = promoted_row(call, arg, nest.refs, write=False)
        last = address_row(arg)
        column = int(last[1]) if last is not None and last[1].isdigit() else None
    if ref is None or column is None or ref.deref:
        return None
    if any(s.indirect for s in ref.subscripts) or not is_row(ref, nest, source):
        return None
    fn = source.function(nest.function)
    macros = integer_macros(source.macros)
    if not within_row(call, ref, fn, source, macros, column):
        return None
    return replace(ref, escapes=False, kind=AccessKind.READ)


def _column(element: Ref) -> int | None:
    """The literal last subscript `k` of `&x[i][k]`; None when it varies."""
    poly = element.subscripts[-1].poly
    if poly is None or not poly.is_constant or poly.constant < 0:
        return None
    return poly.constant


def _extent(
    row: Ref, fn: Function | None, source: SourceFile, macros: dict[str, int]
) -> int | None:
    """The number of elements of the row `row` (`a[i]` of `double a[N][M]`: M).

    A row of `real3 *f` has the extent of the typedef (`typedef double real3[3]`).
    """
    var = member_var(row.name, fn, source.globals, source.types)
    if var is None:
        return None
    if not var.pointers and len(var.dims) == len(row.subscripts) + 1:
        return extent_value(var.dims[-1], macros)
    if var.pointers == len(row.subscripts) and not var.dims:
        return typedef_extent(var.type, source, macros)
    return None


def _rebuilt(loop: Loop, promoted: dict[int, Ref]) -> Loop:
    refs = tuple(promoted.get(r.span.start_byte, r) for r in loop.refs)
    children = tuple(_rebuilt(c, promoted) for c in loop.children)
    return replace(loop, refs=refs, children=children)


def promote_row_arguments(
    nest: Loop,
    source: SourceFile,
    pure: frozenset[str],
    program: ProgramSummaries | None = None,
) -> Loop:
    """`nest` with each row argument a callee writes recorded as an update."""
    if not nest.calls:
        return nest
    promoted = _row_writes(nest, source, pure, program)
    return _rebuilt(nest, promoted) if promoted else nest
