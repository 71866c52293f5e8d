"""Flat ranges passed to library calls: `qsort(&a[i*m], m, sizeof a[0], cmp)`.

A sized library call on an address into a flat array writes the elements
`a[e]` to `a[e + n - 1]`, where `n` is its element count (`qsort`'s count, or
the byte count `n * sizeof(element)` of `memcpy`, `memmove`, `memset`). The
table says which arguments it writes; the size says how far. Such a write is
an access like any other: for the dependence test it is modelled as the
reference `a[e + k]` inside a loop `for (k = 0; k < n; k++)` around the call,
in a copy of the nest used for the dependence graph only (`range_probe`). With
`e = i*m` and `n = m` the rows of two iterations are then disjoint exactly
when the subscript analysis proves it, and any other access of `a` that
reaches another iteration's row is a dependence, as it should be.

Only a plain array or pointer of one level, an element count that is a
polynomial, and a size that is `sizeof` the element qualify; anything else
keeps the call an obstacle.

A function of the file whose pointer parameter is used only at literal
offsets (`*v = ..`, `v[0]`, `v[2]`; never moved, passed on or stored:
callee_slices) is such a call over those offsets: `set(&a[k], x)` writes
`a[k]`, as `a[k] = ..` would, and `norm3(&a[3*i])` reads `a[3*i]` to `a[3*i + 2]`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from accls.analysis.callee_slices import element_type
from accls.analysis.field_arguments import field_matches, field_of
from accls.analysis.pointer_slices import callee_slice, known_callee
from accls.analysis.row_sizes import element_count, unwrapped
from accls.analysis.row_slices import row_room
from accls.frontend import (
    AccessKind,
    Call,
    Function,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Span,
    Subscript,
    Var,
    library_function,
)
from accls.frontend.exprs import expression_poly

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["RANGE_VAR", "range_probe", "range_write"]

RANGE_VAR = "__accls_k"
"""The variable of the loop that stands for a call's range (never a C name here)."""

# Synthetic loop ids: above any start byte, so they meet no real loop.
_ID_BASE = 1 << 40
_IDENT = re.compile(r"[A-Za-z_]\w*")
# The variable an argument starts from: `b` of `&b[k]`, `(b + k)`.
_BASE = re.compile(r"&?\(*([A-Za-z_]\w*)")
# `a + i*m`: a pointer plus an offset of names, numbers, `+ - *` and parentheses.
_POINTER_PLUS = re.compile(r"([A-Za-z_]\w*)\+([\w+\-*()]+)")


def _folded(text: str) -> str:
    return "".join(text.split())


def _element(call: Call, arg: str, refs: tuple[Ref, ...]) -> Ref | None:
    """The escaping element reference `a[e]` of the argument `&a[e]` or `&(a[e])`.

    Or of `&a[e].f`: the reference `a[e]` of the field `f` (field_arguments).
    """
    text = _folded(arg)
    if not text.startswith("&"):
        return None
    inner = unwrapped(text[1:])
    found = [
        ref
        for ref in refs
        if call.span.start_byte <= ref.span.start_byte < call.span.end_byte
        and ref.escapes
        and (
            (not ref.field and _folded(ref.render()) == inner)
            or field_matches(ref, inner, _folded(ref.render()))
        )
    ]
    # Two arguments alike (`memcpy(&a[k], &a[k], ..)`) cannot be told apart.
    return found[0] if len(found) == 1 else None


def _offset(call: Call, arg: str, refs: tuple[Ref, ...]) -> Ref | None:
    """`a + e` as the element `a[e]` it points to, when `e` is a polynomial.

    The offset is read as written: a scalar the loop sets is then a symbol that
    changes in the nest, which the dependence test does not model (it assumes
    the worst). Built from the read of the pointer `a` inside the call.
    """
    text = unwrapped(_folded(arg))
    match = _POINTER_PLUS.fullmatch(text)
    if match is None:
        return None
    name, offset = match.group(1), match.group(2)
    poly = expression_poly(offset)
    if poly is None:
        return None
    found = [
        ref
        for ref in refs
        if call.span.start_byte <= ref.span.start_byte < call.span.end_byte
        and ref.name == name
        and not ref.subscripts
    ]
    if len(found) != 1 or found[0].is_write:
        return None  # `a` twice in the call: which read is this argument's?
    sub = Subscript(text=offset, poly=poly)
    return replace(found[0], subscripts=(sub,), escapes=True)


def range_write(
    call: Call,
    index: int,
    refs: tuple[Ref, ...],
    fn: Function | None,
    source: SourceFile,
    program: ProgramSummaries | None = None,
) -> Ref | None:
    """The range `a[e + k]` that library `call` accesses through argument `index`.

    None unless the argument is `&a[e]` of a one-level array or pointer `a`
    declared in `fn` or globally, `e` is a polynomial, and the call's size is
    a polynomial count of `sizeof` the element. The subscript uses RANGE_VAR
    for the offset within the range.
    """
    found = _range(call, index, refs, fn, source, program)
    return found[0] if found is not None else None


def _range(
    call: Call,
    index: int,
    refs: tuple[Ref, ...],
    fn: Function | None,
    source: SourceFile,
    program: ProgramSummaries | None = None,
) -> tuple[Ref, Poly] | None:
    known = library_function(call.name)
    if index >= len(call.args):
        return None
    if known_callee(call, source, program):
        return _element_range(call, index, refs, fn, source, program)
    if known is None or (index not in known.writes and index not in known.reads):
        return None
    found = _flat_element(call, index, refs, fn, source)
    if found is None or found[0].field:
        return None  # a library size counts elements, never one field
    element, sub, start, var = found
    alike = _alike(call, var, fn, source)
    count = element_count(call, element.render(), var.type, alike)
    poly = expression_poly(count) if count is not None else None
    if count is None or poly is None or RANGE_VAR in poly.names():
        return None
    offset = Subscript(
        text=f"{sub.text} + [0, {' '.join(count.split())})",
        poly=start + Poly.sym(RANGE_VAR),
        values=sub.values,
    )
    ref = replace(
        element,
        kind=AccessKind.UPDATE if index in known.writes else AccessKind.READ,
        subscripts=(offset,),
        escapes=False,
        into="",
        copies="",
    )
    return ref, poly


def _element_range(
    call: Call,
    index: int,
    refs: tuple[Ref, ...],
    fn: Function | None,
    source: SourceFile,
    program: ProgramSummaries | None,
) -> tuple[Ref, Poly] | None:
    """The elements `a[e + lo]` to `a[e + hi]` that `&a[e]` passed to a slice reaches.

    The callee uses its parameter only at the literal offsets `lo` to `hi`
    (callee_slices, or the summary of another file's callee: pointer_slices),
    with the elements of `a`'s type.
    """
    found = _flat_element(call, index, refs, fn, source, rows=True)
    sliced = callee_slice(call, index, source, program) if found is not None else None
    if found is None or sliced is None:
        return None
    element, sub, start, var = found
    if element.field:
        if len(element.subscripts) != 1 or not field_of(element, var, sliced, source):
            return None
    elif element_type(var.type, source.types) != sliced.element:
        return None  # `f((void *)&c[k])` read as another type: other extents
    kind, low, high = sliced.kind, sliced.low, sliced.high
    if len(element.subscripts) == 2:
        # `&r[i][c]`: only a read inside the row (a written row is row_arguments').
        room = row_room(element, var, source)
        if room is None or sliced.written or room[0] + low < 0:
            return None
        if room[0] + high >= room[1]:
            return None
    shown = sub.text if (low, high) == (0, 0) else f"{sub.text} + [{low}, {high}]"
    offset = Subscript(
        text=shown,
        poly=start + Poly.const(low) + Poly.sym(RANGE_VAR),
        values=sub.values,
    )
    ref = replace(
        element,
        kind=kind,
        subscripts=(*element.subscripts[:-1], offset),
        escapes=False,
        into="",
        copies="",
    )
    return ref, Poly.const(high - low + 1)


def _flat_element(
    call: Call,
    index: int,
    refs: tuple[Ref, ...],
    fn: Function | None,
    source: SourceFile,
    rows: bool = False,
) -> tuple[Ref, Subscript, Poly, Var] | None:
    """`a[e]` of the argument `&a[e]` (or `a + e`): its subscript, `e` and `a`.

    None unless `e` is a direct polynomial and `a` is a one-level array or
    pointer (`double *a`, `double a[N]`), or with `rows` an array of rows
    (`&a[i][e]`, which row_slices checks).
    """
    element = _element(call, call.args[index], refs) or _offset(
        call, call.args[index], refs
    )
    rank = len(element.subscripts) if element is not None else 0
    if element is None or element.deref or rank not in ((1, 2) if rows else (1,)):
        return None
    sub = element.subscripts[-1]
    if sub.indirect or sub.poly is None or not _IDENT.fullmatch(element.name):
        return None
    var = _declared(element.name, fn, source)
    if var is None or var.rank != rank or var.unknown_shape:
        return None
    return element, sub, sub.poly, var


def _declared(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    var = fn.lookup(name) if fn is not None else None
    if var is None and (fn is None or not fn.declarations(name)):
        var = next((g for g in source.globals if g.name == name), None)
    return var


def _alike(
    call: Call, var: Var, fn: Function | None, source: SourceFile
) -> tuple[str, ...]:
    """`*b` and `b[0]` for the other flat arguments `b` of `var`'s element type.

    `memcpy(&a[k], &b[k], m * sizeof *a)`: the size counts elements of `b` too.
    """
    out: list[str] = []
    for arg in call.args:
        match = _BASE.match(_folded(arg))
        other = _declared(match.group(1), fn, source) if match else None
        if match is None or other is None or other.rank != 1 or other.unknown_shape:
            continue
        if _folded(other.type) == _folded(var.type):
            out.extend((f"*{other.name}", f"{other.name}[0]"))
    return tuple(out)


def _probe_loop(
    call: Call, range_ref: Ref, count: Poly, loop_id: int, nest: Loop
) -> Loop:
    """The loop `for (k = 0; k < count; k++)` that stands for the call's range."""
    end = call.span
    return Loop(
        id=loop_id,
        span=call.span,
        keyword=call.span,
        header=Span(end.end_byte, end.end_byte, end.end, end.end),  # no ref in it
        body=call.span,
        function=nest.function,
        var=RANGE_VAR,
        lower=Poly.const(0),
        lower_text="0",
        upper=count,
        upper_text="",
        cond_op="<",
        step=1,
        step_text="1",
        refs=(range_ref,),
    )


def range_probe(
    nest: Loop, source: SourceFile, program: ProgramSummaries | None = None
) -> Loop:
    """`nest` with each library range write modelled as a loop (see the module).

    For the dependence graph only: the loops it adds have ids no real loop has.
    The escaping element `a[e]` of `&a[e]` is replaced by the range reference;
    for `a + e` the range follows the read of the pointer `a`.
    """
    fn = source.function(nest.function)
    ids = {loop.id for loop in nest.walk()}
    # (start byte, whether it is the pointer read of `a + e`) -> range, loop
    ranges: dict[tuple[int, bool], tuple[Ref, Loop]] = {}
    for call in nest.calls:
        known = library_function(call.name)
        indices = (
            range(len(call.args))
            if known_callee(call, source, program)
            else sorted({*known.writes, *known.reads} if known else ())
        )
        for index in indices:
            found = _range(call, index, nest.refs, fn, source, program)
            if found is None:
                continue
            args, refs = call.args[index], nest.refs
            element = _element(call, args, refs)
            key = (element.span.start_byte, False) if element is not None else None
            if element is None:
                element = _offset(call, args, refs)
                key = (element.span.start_byte, True) if element is not None else None
            ref, count = found
            # Never drop a range: the analysis refuses the nest instead.
            if (
                key is None
                or key in ranges
                or not ref.loops
                or ref.loops[-1] not in ids
            ):
                raise ValueError(f"a range of `{call.name}()` that cannot be placed")
            loop_id = _ID_BASE + (call.span.start_byte << 4) + index
            ref = replace(
                ref, loops=(*ref.loops, loop_id), context=(*ref.context, loop_id)
            )
            ranges[key] = (ref, _probe_loop(call, ref, count, loop_id, nest))
    return _with_ranges(nest, ranges) if ranges else nest


def _with_ranges(loop: Loop, ranges: dict[tuple[int, bool], tuple[Ref, Loop]]) -> Loop:
    refs: list[Ref] = []
    for ref in loop.refs:
        start = ref.span.start_byte
        if not ref.subscripts and not ref.is_write and (start, True) in ranges:
            # `a + e`: the pointer read, then the range
            refs.extend((ref, ranges[start, True][0]))
        elif ref.escapes and ref.subscripts and (start, False) in ranges:
            refs.append(ranges[start, False][0])  # `&a[e]`: the address is the range
        else:
            refs.append(ref)
    children = tuple(_with_ranges(c, ranges) for c in loop.children)
    # A range's loop goes under the innermost loop that encloses its call.
    own = tuple(
        probe for ref, probe in ranges.values() if ref.loops[-2:-1] == (loop.id,)
    )
    return replace(loop, refs=tuple(refs), children=(*children, *own))
