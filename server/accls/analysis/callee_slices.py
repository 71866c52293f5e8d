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
from accls.analysis.loop_bound_symbols import bounded
from accls.analysis.member_slices import inside_element, passed_whole
from accls.frontend import (
    AccessKind,
    Call,
    Function,
    Loop,
    Ref,
    SourceFile,
    TypeTable,
    Var,
)

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
    fn: Function, index: int, source: SourceFile | None = None, depth: int = 4
) -> tuple[AccessKind, int, int] | None:
    """How `fn` uses its pointer parameter `index` (see `parameter_slice`).

    With the file that defines `fn`, a subscript affine in counters of loops
    with literal bounds counts over the counters' range (counted_offsets), a
    member inside `*p` is `p[0]` (member_slices), and `p` handed whole to a
    function of the file adds that function's uses.
    """
    param = pointer_parameter(fn, index)
    if param is None:
        return None
    written = False
    offsets: list[int] = []
    loops: dict[int, Loop] | None = None
    plain = 0
    for ref in fn.refs:
        start = _IDENT.match(ref.name.strip())
        if start is None or start.group(0) != param.name:
            continue  # `(p + 1)` starts with no name: `p` is then read alone
        if source is not None and inside_element(ref, param, fn, source):
            offsets.append(0)
            written = written or ref.is_write
            continue
        if ref.name.strip() != param.name or ref.escapes:
            return None
        if source is not None and _plain(ref):
            plain += 1
            continue
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
                found = counted_range(sub.poly, ref, fn, loops, bounded(fn, source))
                if found is None:
                    return None
                offsets.extend(found)
        else:
            return None
        written = written or ref.is_write
    if plain:
        handed = _handed_on(fn, param.name, plain, source, depth)
        if handed is None:
            return None
        offsets.extend(handed[1:])
        written = written or handed[0]
    kind = AccessKind.UPDATE if written else AccessKind.READ
    return kind, min(offsets, default=0), max(offsets, default=0)


def _plain(ref: Ref) -> bool:
    """`p` read as a value: an argument handed on, or a copy (which fails later)."""
    return not (ref.subscripts or ref.deref or ref.is_write or ref.member)


def _handed_on(
    fn: Function, name: str, plain: int, source: SourceFile | None, depth: int
) -> tuple[bool, int, int] | None:
    """(written, low, high) over the calls `p` is handed to whole; None if other uses.

    Every plain read of `p` must be such an argument (no `q = p`), and each
    callee a function of the file, defined once, using its parameter as a slice.
    """
    calls = passed_whole(fn, name)
    if source is None or depth <= 0 or len(calls) != plain:
        return None
    written, lows, highs = False, [0], [0]
    for call, at in calls:
        callees = [f for f in source.functions if f.name == call.name]
        if len(callees) != 1 or len(callees[0].params) != len(call.args):
            return None
        if callees[0] is fn:
            return None  # recursion: no fixed point sought
        found = function_slice(callees[0], at, source, depth - 1)
        if found is None:
            return None
        written = written or found[0] is AccessKind.UPDATE
        lows.append(found[1])
        highs.append(found[2])
    return written, min(lows), max(highs)
