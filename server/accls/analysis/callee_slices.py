"""The fixed elements a function of the file touches through a pointer parameter.

`double norm3(const double *p) { return p[0]*p[0] + p[1]*p[1] + p[2]*p[2]; }`
reads exactly `p[0]`, `p[1]` and `p[2]`: called as `norm3(&a[3*i])` it reads
`a[3*i]` to `a[3*i + 2]`, and nothing else of `a`. When every use of the
parameter in the callee is such an element at a literal offset (`*p` is
`p[0]`), the call is an access of the range `a[e + lo]` to `a[e + hi]`, which
range_arguments models as the loop's own accesses for the dependence test: the
slices of two iterations are apart exactly when the subscripts prove it.

Anything else (the pointer moved, offset by a variable, stored, passed on,
its address or a field taken, another definition of the name, a local that
hides the parameter, an element of another type) gives None.
"""

from __future__ import annotations

import re

from accls.analysis.counted_offsets import counted_range, function_loops
from accls.frontend import AccessKind, Call, Function, Loop, SourceFile, TypeTable, Var

__all__ = [
    "element_type",
    "function_slice",
    "parameter_slice",
    "pointer_parameter",
    "unqualified",
]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_QUALIFIERS = frozenset({"const", "volatile", "restrict", "__restrict", "__restrict__"})


def unqualified(type_: str) -> str:
    """A type's text without `const`, `volatile` or `restrict`."""
    return " ".join(w for w in type_.split() if w not in _QUALIFIERS)


def element_type(type_: str, types: TypeTable) -> str:
    """A type without qualifiers, through the typedefs of one scalar."""
    plain = unqualified(type_)
    return types.scalar_base(plain) or plain


def parameter_slice(
    call: Call, index: int, source: SourceFile
) -> tuple[AccessKind, int, int] | None:
    """How the file's one `call.name` uses pointer parameter `index`.

    (UPDATE if it writes an element, else READ; the lowest and highest literal
    offset it uses), or None when it uses the pointer any other way.
    """
    if source.language != "c":
        return None  # Fortran passes by reference: a dummy is no pointer
    found = [f for f in source.functions if f.name == call.name]
    if len(found) != 1 or len(call.args) != len(found[0].params):
        return None
    return function_slice(found[0], index, source)


def pointer_parameter(fn: Function, index: int) -> Var | None:
    """Parameter `index` of `fn` when it is one plain pointer no local hides.

    `double *p`, or `double p[]` / `double p[8]`: in C both are a pointer.
    """
    if index >= len(fn.params):
        return None
    param = fn.params[index]
    pointer = param.pointers == 1 and not param.dims
    if not (pointer or (param.levels == "[" and not param.pointers)):
        return None
    if fn.declarations(param.name) != 1:
        return None  # a local of the same name hides it somewhere
    return param


def function_slice(
    fn: Function, index: int, source: SourceFile | None = None
) -> tuple[AccessKind, int, int] | None:
    """How `fn` uses its pointer parameter `index` (see `parameter_slice`).

    With the file that defines `fn`, a subscript affine in counters of loops
    with literal bounds counts over the counters' range (counted_offsets).
    """
    param = pointer_parameter(fn, index)
    if param is None:
        return None
    written = False
    offsets: list[int] = []
    loops: dict[int, Loop] | None = None
    for ref in fn.refs:
        start = _IDENT.match(ref.name.strip())
        if start is None or start.group(0) != param.name:
            continue  # `(p + 1)` starts with no name: `p` is then read alone
        if ref.name.strip() != param.name or ref.escapes:
            return None
        if ref.deref and not ref.subscripts:
            offsets.append(0)
        elif not ref.deref and len(ref.subscripts) == 1:
            sub = ref.subscripts[0]
            if sub.indirect or sub.poly is None:
                return None
            if sub.poly.is_constant:
                offsets.append(sub.poly.constant)
            else:
                if source is None:
                    return None
                if loops is None:
                    loops = function_loops(fn, source)
                found = counted_range(sub.poly, ref, fn, loops)
                if found is None:
                    return None
                offsets.extend(found)
        else:
            return None
        written = written or ref.is_write
    kind = AccessKind.UPDATE if written else AccessKind.READ
    return kind, min(offsets, default=0), max(offsets, default=0)
