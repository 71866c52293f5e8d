"""Table setup: a loop that fills a table on the stack that no parallel loop divides.

`DTYPE weight[2*RADIUS+1][2*RADIUS+1];` and then
`for (jj = 1; jj <= RADIUS; jj++) for (ii = -jj+1; ii < jj; ii++) WEIGHT(ii,jj) = ...`:
the loop computes every element from its own variables and invariants, reads no
data (only, in a later statement, an element it stored: `p[i].no = i;
p[i].at = p[i].no * m;`), and writes only automatic arrays whose extents the build
fixes (macros, literals: nothing the function can change). Programs keep the data
their kernels divide on the heap or in globals; what sits on the stack with a
compile-time size is a table (stencil weights, coefficients, a lookup table), and
filling it is setup: a few microseconds of serial code, where a region costs about
as much. Experts leave such fills serial however much arithmetic each element takes
(a light fill of any array is cost_light's; this rule takes any weight but only
stack tables).

A parallel loop elsewhere in the file that shares the table out (indexes it, as
data, with its own variable) makes the fill a first touch of the kernel's data, and
the loop keeps its pragma (another such fill, or a loop that allocates per element,
is setup too and shares nothing out); so does a loop that sums into a scalar,
calls a function that is not a pure library one, or touches memory other than such
tables.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost_light import field_store, shared_out_elsewhere
from accls.analysis.cost_stack import automatic_arrays, changeable_names
from accls.analysis.model import ScalarClass
from accls.frontend import Loop, Poly, Ref, SourceFile
from accls.frontend.exprs import expression_poly
from accls.frontend.library import Effect, library_function

__all__ = ["table_reason"]

_FIELDS = re.compile(rb"(?:\s*(?:\.|->)\s*\w+)+")


def _tables(source: SourceFile, loop: Loop, values: Mapping[str, Poly]) -> set[str]:
    """The automatic arrays around `loop` whose extents the build fixes."""
    changeable = changeable_names(source, loop)
    out: set[str] = set()
    for var in automatic_arrays(source, loop):
        polys = [expression_poly(d) if d else None for d in var.dims]
        if not polys or any(p is None for p in polys):
            continue  # `double t[]` or an extent the model cannot read
        names = frozenset().union(
            *(p.substitute(dict(values)).names() for p in polys if p is not None)
        )
        if not names & changeable:
            out.add(var.name)
    return out


def _pure_calls(loop: Loop, source: SourceFile) -> bool:
    """True when every call of `loop` is a pure library function (`sin`, `pow`)."""
    for call in loop.calls:
        entry = library_function(call.name)
        if source.function(call.name) is not None or entry is None:
            return False
        if entry.effect is not Effect.PURE:
            return False
    return True


def _element(ref: Ref, data: bytes) -> tuple[str, tuple[str, ...], bytes]:
    """What `ref` names: the array, the subscripts' texts, the fields after them."""
    fields = _FIELDS.match(data, ref.span.end_byte)
    path = re.sub(rb"\s", b"", fields.group(0)) if fields else b""
    return ref.name, tuple(s.text for s in ref.subscripts), path


def _stored_before(ref: Ref, stores: list[Ref], data: bytes) -> bool:
    """True when a statement before `ref` in the body stores the element it reads."""
    key = _element(ref, data)
    return any(
        _element(w, data) == key
        and w.span.end_byte <= ref.span.start_byte
        and b";" in data[w.span.end_byte : ref.span.start_byte]
        for w in stores
    )


def _fills(analysis: FileAnalysis, loop: Loop, tables: set[str]) -> bool:
    """True when `loop` only writes `tables` and reads back only what it stored."""
    source = analysis.source
    memory = [r for r in loop.refs if r.subscripts or r.deref]
    stores = [r for r in memory if r.is_write]
    if not stores or not {r.name for r in memory} <= tables:
        return False
    reads = [r for r in memory if r.is_read and not field_store(r, source.data)]
    if any(not _stored_before(r, stores, source.data) for r in reads):
        return False  # it reads the table's old values: a kernel over it
    if any(s.cls is ScalarClass.REDUCTION for s in analysis.of(loop).scalars):
        return False  # it also computes a sum: more than a fill
    return _pure_calls(loop, source)


def table_reason(
    analysis: FileAnalysis,
    loop: Loop,
    values: Mapping[str, Poly],
    per_iteration: int | None,
) -> str:
    """Why `loop` only fills a stack table no parallel loop shares out, or ""."""
    source = analysis.source
    tables = _tables(source, loop, values)
    if not _fills(analysis, loop, tables):
        return ""
    written = {r.name for r in loop.refs if r.is_write and (r.subscripts or r.deref)}

    def setup(other: Loop) -> bool:
        return _fills(analysis, other, _tables(source, other, values))

    if shared_out_elsewhere(analysis, loop, written, setup):
        return ""
    names = ", ".join(f"`{n}`" for n in sorted(written))
    each = f"about {per_iteration} work units an iteration, " if per_iteration else ""
    return (
        f"table setup: it fills {names}, an array on the stack whose size the build "
        f"fixes, {each}and reads no other data; no parallel loop of the file shares "
        "it out: setup code, likely slower in parallel"
    )
