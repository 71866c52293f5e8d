"""Whether a function of the program keeps within the row it is passed.

`zero3(f[i])` with `void zero3(double *p) { p[0] = p[1] = p[2] = 0; }` writes
row `i` of `double f[n][3]` only; `bump(a[i], 2 * M)` with a loop to `n` runs
into row `i + 1`, which C's array rows do not stop in practice (rows of an
array of arrays are contiguous). A callee's accesses through the parameter
must be proved within `[0, extent)`: constant subscripts, and the variable of a
loop of the callee whose bounds are constants. A bound the caller passes counts
when the call passes a constant (`bump(a[i], M)`, `#define M 64`) and the callee
never assigns that parameter. Anything else (a bound the caller computes, the
pointer handed on or copied, `*(p + k)`) is not proved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from accls.analysis.pointer_slices import program_slice
from accls.frontend import Function, Loop, Poly, Ref, SourceFile
from accls.frontend.exprs import expression_poly

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["callee_within_row", "extent_value", "typedef_extent"]

_SUM = re.compile(r"[\w\s+\-*()]+")


def _loops(fn: Function, source: SourceFile) -> dict[int, Loop]:
    return {
        loop.id: loop
        for nest in source.nests
        if nest.function == fn.name
        for loop in nest.walk()
    }


def _known(poly: Poly | None, macros: Mapping[str, int]) -> Poly | None:
    """`poly` with the integer macros of the file put in (`k < M`, `#define M 20`)."""
    if poly is None:
        return None
    names = {n: Poly.const(macros[n]) for n in poly.names() if n in macros}
    return poly.substitute(names) if names else poly


def _span(
    poly: Poly, loops: list[Loop], macros: Mapping[str, int]
) -> tuple[int, int] | None:
    """The least and greatest value of `poly` (`c` or `k + c`), when bounded."""
    if poly.is_constant:
        return poly.constant, poly.constant
    names = sorted(poly.names())
    if len(names) != 1 or not poly.is_affine or poly.coeff(names[0]) != 1:
        return None
    found = [loop for loop in loops if loop.var == names[0]]
    if len(found) != 1:
        return None  # two loops of that name: which one is it?
    loop = found[0]
    upper, lower = _known(loop.upper, macros), _known(loop.lower, macros)
    if upper is None or lower is None or loop.step != 1:
        return None
    if not upper.is_constant or not lower.is_constant:
        return None
    last = upper.constant - (1 if loop.cond_op == "<" else 0)
    if loop.cond_op not in ("<", "<="):
        return None
    shift = (poly - Poly.sym(names[0])).constant
    return lower.constant + shift, last + shift


def _fits(
    ref: Ref, extent: int, loops: dict[int, Loop], macros: Mapping[str, int]
) -> bool:
    if ref.escapes:
        return False  # `&p[k]` goes elsewhere
    if not ref.subscripts:
        return ref.deref and "->" not in ref.name  # `*p` is `p[0]`
    sub = ref.subscripts[0]
    if sub.indirect or sub.poly is None:
        return False
    poly = _known(sub.poly, macros)
    if poly is None:
        return False
    span = _span(poly, [loops[i] for i in ref.loops if i in loops], macros)
    return span is not None and span[0] >= 0 and span[1] < extent


def callee_within_row(
    name: str,
    index: int,
    extent: int | None,
    source: SourceFile,
    macros: Mapping[str, int],
    args: tuple[str, ...] = (),
    program: ProgramSummaries | None = None,
) -> bool:
    """Whether function `name` accesses its parameter `index` within `[0, extent)`.

    `args` are the call's arguments: a constant one fixes its parameter. A
    function of another file (`program`) counts by the literal offsets its
    summary keeps (pointer_slices).
    """
    if extent is None:
        return False
    fn = source.function(name)
    if fn is None and source.headers is not None:
        fn = source.headers.function(name)
        source = source.headers if fn is not None else source
    if fn is None:
        found = program_slice(name, index, len(args), source, program)
        return found is not None and found.low >= 0 and found.high < extent
    if index >= len(fn.params):
        return False
    param = fn.params[index].name
    loops = _loops(fn, source)
    refs = [r for r in fn.refs if _root(r.name) == param]
    if any(v.name == param for v in fn.locals):
        return False  # shadowed: the names below are not all the parameter's
    known = {**macros, **_constant_params(fn, args, macros)}
    return all(_fits(r, extent, loops, known) for r in refs) and not any(
        r.is_write and not r.subscripts and not r.deref for r in refs
    )


def _constant_params(
    fn: Function, args: tuple[str, ...], macros: Mapping[str, int]
) -> dict[str, int]:
    """The parameters the call passes a constant for and the callee never assigns."""
    written = {_root(r.name) for r in fn.refs if r.is_write or r.escapes}
    local = {v.name for v in fn.locals}
    out: dict[str, int] = {}
    for param, arg in zip(fn.params, args, strict=False):
        value = extent_value(arg, macros)
        name = param.name
        if value is None or param.pointers or param.dims:
            continue
        if name in written or name in local or name in macros:
            continue  # assigned in the callee, shadowed, or a macro's name
        out[name] = value
    return out


def _root(name: str) -> str:
    for cut in ("->", ".", "["):
        name = name.split(cut, 1)[0]
    return name.strip()


def extent_value(text: str | None, macros: Mapping[str, int]) -> int | None:
    """The number of elements of a row's extent text, when it is known."""
    if text is None:
        return None
    text = text.strip().strip("()").strip()
    if text.isdigit():
        return int(text)
    if text in macros:
        return macros[text]
    return _constant_sum(text, macros)


def _constant_sum(text: str, macros: Mapping[str, int]) -> int | None:
    """`W + 1` or `2 * N` of integer macros, when it is a number of at least 0.

    Only `+`, `-` and `*`: a `/` or `%` rounds in ways a polynomial does not.
    """
    if not _SUM.fullmatch(text):
        return None
    poly = expression_poly(text)
    if poly is None or not poly.names() <= macros.keys():
        return None
    value = poly.substitute({n: Poly.const(macros[n]) for n in poly.names()})
    if not value.is_constant or value.constant < 0:
        return None
    return value.constant


def typedef_extent(
    name: str, source: SourceFile, macros: Mapping[str, int]
) -> int | None:
    """The extent of `typedef double name[3];` in the file or its headers."""
    if not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
        return None
    pattern = re.compile(
        rb"\btypedef\s+[\w\s]+?\b" + name.strip().encode() + rb"\s*\[([^\]\[]+)\]\s*;"
    )
    found: set[int | None] = set()
    for unit in (source, source.headers):
        if unit is None:
            continue
        for match in pattern.finditer(unit.data):
            found.add(extent_value(match.group(1).decode(errors="replace"), macros))
    return found.pop() if len(found) == 1 else None
