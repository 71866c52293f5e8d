"""A pointer set once before a loop nest into a shared array: `double *t = s[0];`.

`pointer_locals` follows pointers the loop body declares. One declared before the
nest, in the enclosing parallel region, is each thread's own copy, yet every copy
holds the same address when the initializer names no thread-varying value: `t[k]`
is `s[0][k]`, an element every thread writes. The nest is rewritten so that each
`t[k]` is that element. Only initializers built from literals and integer macros
qualify (`s[0]`, `&w[0]`, `w + N`: no thread number, no variable), the pointer
must be the function's only declaration of its name, set by it alone, and the
nest must neither copy nor pass it on.
"""

from __future__ import annotations

import re

from accls.analysis.nest_views import integer_macros
from accls.analysis.pointer_locals import (
    all_loops,
    declared_array,
    parsed_address,
    rebuilt_nest,
    rewritten_uses,
)
from accls.frontend import Loop, Ref, SourceFile, Subscript, Var
from accls.frontend.exprs import expression_poly

__all__ = ["promote_outer_pointers"]

_NAME = re.compile(r"[A-Za-z_]\w*")


def promote_outer_pointers(nest: Loop, source: SourceFile) -> Loop:
    """`nest` with each access through a fixed outer pointer as the array element."""
    fn = source.function(nest.function)
    if source.language == "fortran" or fn is None:
        return nest
    inner = {v.name for lp in all_loops(nest) for v in lp.locals}
    macros = set(integer_macros(source.macros))
    promoted: dict[int, Ref] = {}
    for var in fn.locals:
        if var.name in inner or sum(v.name == var.name for v in fn.locals) != 1:
            continue
        found = _target(var, nest, source, fn.refs, macros)
        if found is None:
            continue
        base, start, row, column = found
        promoted.update(rewritten_uses(var.name, nest, base, start, row, column))
    return rebuilt_nest(nest, promoted, set()) if promoted else nest


def _target(
    var: Var,
    nest: Loop,
    source: SourceFile,
    refs: tuple[Ref, ...],
    macros: set[str],
) -> tuple[str, Subscript, bool, Subscript] | None:
    if var.pointers != 1 or var.dims or var.span is None or var.address_taken:
        return None
    if var.span.start_byte >= nest.span.start_byte:
        return None
    own = [r for r in nest.refs if r.name == var.name]
    if not any(r.is_write and (r.subscripts or r.deref) for r in own):
        return None  # nothing written through it here
    sets = [r for r in refs if r.name == var.name and r.is_write and not r.subscripts]
    if len(sets) != 1 or any(r.deref for r in sets):
        return None  # set again somewhere: which address is unknown
    if any(
        (not r.subscripts and not r.deref) or r.escapes or r.into or r.member
        for r in own
    ):
        return None  # copied, passed on, or a member through it
    text = source.data[var.span.start_byte : var.span.end_byte + 200].decode(
        "utf-8", "replace"
    )
    init = re.match(rf"[^;]*?\b{re.escape(var.name)}\s*=\s*([^;,{{}}]+);", text)
    found = parsed_address(" ".join(init.group(1).split())) if init else None
    if found is None:
        return None
    base, start, row, column = found
    if set(_NAME.findall(f"{start} {column}")) - macros:
        return None  # a variable (a thread number?) may differ between threads
    array = declared_array(base, nest, source)
    if array is None or array.pointers or len(array.dims) != 1 + row:
        return None  # only arrays with their dimensions: rows that cannot alias
    col = Subscript(text=column, poly=expression_poly(column))
    return base, Subscript(text=start, poly=expression_poly(start)), row, col
