"""A callee's array accesses at the call site, as if its body were written inline.

`static void upd(int i) { r[i] = f[i] - 2.0 * u[i] + u[i - 1] + u[i + 1]; }`
called as `upd(i)` writes `r[i]` and reads `f[i]`, `u[i]`, `u[i - 1]` and
`u[i + 1]` of the file's global arrays; `set_row(a, n, i)`, whose loop
`for (j = 0; j < n; j++)` writes `p[i*n + j]` through its pointer parameter,
writes the rows `a[i*n + j]` of the caller's array `a`. The references are the
callee's, with each scalar parameter replaced by the call's argument and each
pointer parameter by the array passed; the callee's own loops come along with
their counters renamed (callee_inline_probe places both in the nest's copy that
the dependence test reads).

Only what the test models soundly qualifies: every subscript and loop bound is
a polynomial in the parameters, the callee's counters and integer macros; the
accesses run on every call (no `if`, `?:`, early `return` or OpenMP construct
around them, none atomic); a pointer parameter is used only as `p[e]` or `*p`
and is passed a whole one-dimensional array of the caller (never a pointer,
which could point anywhere) of its element type; a global is an array, or a
scalar the callee only reads. A `static` or pointer local, a call of anything
but a pure library function or a function of the file that touches only its
own frame (callee_own_only), recursion and a parameter the callee changes and
uses in a subscript all give None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from accls.analysis.callee_branch_writes import data_guarded_write
from accls.analysis.callee_own_only import own_only
from accls.analysis.callee_slices import element_type, pointer_parameter
from accls.analysis.counted_offsets import counter_kept, function_loops
from accls.analysis.nest_views import integer_macros
from accls.frontend import (
    Call,
    Function,
    Loop,
    Poly,
    Ref,
    SourceFile,
    Span,
    Subscript,
    Var,
)
from accls.frontend.exprs import expression_poly

__all__ = ["Inlined", "inline_call"]

# Synthetic loop ids: above range_arguments' (1 << 40), below nothing real.
_ID_BASE = 1 << 44
_IDENT = re.compile(r"[A-Za-z_]\w*")
_BOUNDED = frozenset({"<", "<=", ">", ">="})
_JUMPS = re.compile(rb"\b(?:continue|goto|setjmp|longjmp)\b")


@dataclass(frozen=True, slots=True)
class Inlined:
    """The callee's accesses in the caller's names, and the callee's loops."""

    refs: tuple[Ref, ...]  # `loops`/`context`: the callee loops' new ids only
    loops: tuple[Loop, ...]  # the callee's outermost loops, counters renamed
    names: frozenset[str]  # the caller's variables they access, scalars read too
    written: frozenset[str]
    passed: frozenset[str]  # the caller's arrays passed to pointer parameters


@dataclass(frozen=True, slots=True)
class _Frame:
    """What the callee's names mean at one call."""

    callee: Function
    values: dict[str, Poly]  # scalar parameters and counters -> caller polynomials
    arrays: dict[str, str]  # pointer parameters -> the caller's array
    macros: frozenset[str]
    ids: dict[int, int]  # callee loop id -> synthetic id
    counters: dict[int, str]  # callee loop id -> its counter's name at the call
    loops: dict[int, Loop]  # the callee's loops


def inline_call(
    call: Call, caller: Function | None, source: SourceFile, pure: frozenset[str]
) -> Inlined | None:
    """What `call`'s callee accesses outside itself, at the call (see the module)."""
    callee = source.function(call.name)
    found = [f for f in source.functions if f.name == call.name]
    if callee is None or len(found) != 1 or source.language != "c":
        return None
    if len(call.args) != len(callee.params) or caller is None:
        return None
    mine = frozenset({callee.name})
    if any(
        name not in pure and not own_only(name, source, pure, mine)
        for name in callee.calls
    ):
        return None  # recursion, or a call whose effects are not modelled here
    start, end = callee.span.start_byte, callee.span.end_byte
    if any(start <= c.span.start_byte < end for c in source.constructs):
        return None
    if any(v.static or v.pointers for v in callee.locals):
        return None  # shared state, or a local that may point anywhere
    frame = _frame(call, callee, caller, source)
    if frame is None or not _straight(callee, source):
        return None
    loops = function_loops(callee, source)
    tops = [loop for loop in loops.values() if not _nested(loop, loops)]
    copies = []
    for top in sorted(tops, key=lambda loop: loop.id):
        copy = _loop_copy(top, frame, loops, call)
        if copy is None:
            return None
        copies.append(copy)
    refs: list[Ref] = []
    scalars: set[str] = set()
    for ref in callee.refs:
        mapped = _mapped(ref, frame, caller, source)
        if mapped is False:
            return None
        if mapped is not True and mapped.subscripts:
            refs.append(mapped)
        elif mapped is not True:
            scalars.add(mapped.name)  # a global the callee only reads
    # Each copy's references: theirs, in the callee's order.
    placed = tuple(_into_loops(copy, refs) for copy in copies)
    names = frozenset(r.name for r in refs) | scalars
    written = frozenset(r.name for r in refs if r.is_write)
    passed = frozenset(frame.arrays.values())
    return Inlined(
        refs=tuple(refs), loops=placed, names=names, written=written, passed=passed
    )


def _frame(
    call: Call, callee: Function, caller: Function, source: SourceFile
) -> _Frame | None:
    """The parameters' values at `call`, or None when one cannot be modelled."""
    values: dict[str, Poly] = {}
    arrays: dict[str, str] = {}
    # The variable itself assigned, or its address taken: `p = q`, `n--`, `&n`.
    changed = {
        r.name
        for r in callee.refs
        if r.escapes or (r.is_write and not (r.subscripts or r.deref or r.member))
    }
    for index, (param, arg) in enumerate(zip(callee.params, call.args, strict=True)):
        if callee.declarations(param.name) != 1:
            return None
        if param.pointers or param.dims or param.levels:
            if pointer_parameter(callee, index) is None or param.name in changed:
                return None
            target = _whole_array(arg, caller, source)
            if target is None:
                return None
            own = element_type(param.type, source.types)
            if element_type(target.type, source.types) != own:
                return None  # another element size: other offsets
            arrays[param.name] = target.name
        elif param.name not in changed:
            poly = expression_poly(arg)
            if poly is not None and not poly.names() & _reserved(call):
                values[param.name] = poly
    macros = frozenset(integer_macros(source.macros))
    loops = function_loops(callee, source)
    ids = {
        loop_id: _ID_BASE + (call.span.start_byte << 8) + k
        for k, loop_id in enumerate(sorted(loops))
    }
    if len(ids) > 255:
        return None
    counters = {
        loop.id: f"__accls_c{call.span.start_byte}_{loop.var}"
        for loop in loops.values()
        if loop.var is not None
    }
    return _Frame(callee, values, arrays, macros, ids, counters, loops)


def _reserved(call: Call) -> set[str]:
    """Names no argument may use: the renamed counters of this call."""
    return {n for n in _IDENT.findall(" ".join(call.args)) if n.startswith("__accls")}


def _whole_array(arg: str, caller: Function, source: SourceFile) -> Var | None:
    """The caller's one-dimensional array (never a pointer) that `arg` names."""
    name = arg.strip()
    if not _IDENT.fullmatch(name):
        return None
    var = caller.lookup(name)
    if var is None and caller.declarations(name) == 0:
        var = next((g for g in source.globals if g.name == name), None)
    if var is None or var.scope == "param" or var.pointers or len(var.dims) != 1:
        return None
    if var.unknown_shape or (var.levels and var.levels != "["):
        return None
    return var


def _straight(callee: Function, source: SourceFile) -> bool:
    """Whether every statement of the callee runs on each call, loops aside.

    Only a last `return` may leave it; no `if` arm holds any statement that
    touches memory outside it (checked per reference by `_mapped` as well).
    """
    start, end = callee.span.start_byte, callee.span.end_byte
    arms = [
        b.span
        for b in source.branches
        if start <= b.span.start_byte < end and b.kind in ("if", "else")
    ]
    loops = [
        b.span
        for b in source.branches
        if start <= b.span.start_byte < end
        and b.kind == "loop"
        and b.statement not in ("for", "")
    ]
    if loops or _JUMPS.search(source.data, start, end):
        return False  # `while`/`do` and `continue`/`goto`: not modelled here
    for exit_ in callee.exits:
        at = exit_.span.start_byte
        if any(s.start_byte <= at < s.end_byte for s in arms):
            return False
        later = [r for r in callee.refs if r.span.start_byte > exit_.span.end_byte]
        if later:
            return False
    return True


def _nested(loop: Loop, loops: dict[int, Loop]) -> bool:
    return any(loop.id in {c.id for c in other.children} for other in loops.values())


def _loop_copy(
    loop: Loop, frame: _Frame, loops: dict[int, Loop], call: Call
) -> Loop | None:
    """`loop` of the callee with its counter renamed and bounds in caller terms."""
    if loop.var is None or loop.range_for is not None or loop.step_symbol:
        return None
    if loop.exits or not loop.step or loop.cond_op not in _BOUNDED:
        return None
    if loop.lower is None or loop.upper is None or loop.opaque:
        return None
    if not counter_kept(loop.var, loop, frame.callee):
        return None
    renamed = frame.counters[loop.id]
    bounds = []
    for poly in (loop.lower, loop.upper):
        shown = _substituted(poly, frame.values, frame)
        if shown is None:
            return None
        bounds.append(shown)
    children = []
    for child in loop.children:
        inner = replace(frame, values={**frame.values, loop.var: Poly.sym(renamed)})
        copy = _loop_copy(child, inner, loops, call)
        if copy is None:
            return None
        children.append(copy)
    span = call.span
    return replace(
        loop,
        id=frame.ids[loop.id],
        span=span,
        keyword=span,
        header=Span(span.end_byte, span.end_byte, span.end, span.end),
        body=span,
        var=renamed,
        var_declared=True,
        lower=bounds[0],
        lower_text=bounds[0].render(),
        upper=bounds[1],
        upper_text=bounds[1].render(),
        refs=(),
        calls=(),
        children=tuple(children),
        pragmas=(),
        regions=(),
        locals=(),
        live_after=(),
        volatile_bounds=(),
        substituted=(),
        two_way=frozenset(),
    )


def _substituted(poly: Poly, values: dict[str, Poly], frame: _Frame) -> Poly | None:
    """`poly` in the caller's names, or None past the names this frame knows."""
    if set(poly.names()) - set(values) - frame.macros:
        return None
    return poly.substitute(values)


def _mapped(
    ref: Ref, frame: _Frame, caller: Function, source: SourceFile
) -> Ref | bool:
    """`ref` at the call; True when it touches only the call's own memory."""
    callee = frame.callee
    var = callee.lookup(ref.name)
    if var is not None and var.scope == "local":
        return True  # a local of this call (never static or a pointer here)
    if var is not None and ref.name not in frame.arrays:
        return not (ref.deref or ref.subscripts or ref.member)  # a value parameter
    if var is None and ref.name in frame.macros and not ref.is_write:
        return True  # `M` of `i < M`: an integer macro, no variable
    # A read on some paths only is read as if always (one dependence more at
    # worst); so is a write under tests of data (callee_branch_writes).
    some_paths = ref.guarded or any(c < 0 for c in ref.context)
    outside = ref.atomic or (
        ref.is_write and some_paths and not data_guarded_write(ref, callee, source)
    )
    if outside or ref.member or ref.field or ref.escapes or ref.into or ref.copies:
        return False
    if any(loop_id not in frame.ids for loop_id in ref.loops):
        return False
    if ref.name in frame.arrays:
        subs = ref.subscripts or ((Subscript("0", Poly.const(0)),) if ref.deref else ())
        if len(subs) != 1 or (ref.deref and ref.subscripts):
            return False
        name = frame.arrays[ref.name]
    else:
        found = next((g for g in source.globals if g.name == ref.name), None)
        if found is None or found.pointers or caller.declarations(ref.name):
            return False  # a global pointer reaches anything; a local hides it
        if not found.dims:
            return ref if not ref.is_write and not ref.deref else False
        if (
            ref.deref
            or len(ref.subscripts) != len(found.dims)
            or found.levels.strip("[")
        ):
            return False
        subs, name = ref.subscripts, ref.name
    values = _counters(ref, frame)
    out = []
    for sub in subs:
        if sub.indirect or sub.poly is None:
            return False
        poly = _substituted(sub.poly, values, frame)
        if poly is None:
            return False
        out.append(Subscript(text=poly.render(), poly=poly))
    ids = tuple(frame.ids[i] for i in ref.loops)
    return replace(
        ref,
        name=name,
        span=replace(ref.span),
        subscripts=tuple(out),
        deref=False,
        loops=ids,
        context=tuple(frame.ids[c] if c >= 0 else c for c in ref.context),
        reduction=None,
        advance=None,
    )


def _counters(ref: Ref, frame: _Frame) -> dict[str, Poly]:
    """The parameters' values and the renamed counters of the loops around `ref`."""
    values = dict(frame.values)
    for loop_id in ref.loops:
        loop = frame.loops.get(loop_id)
        if loop is not None and loop.var is not None:
            values[loop.var] = Poly.sym(frame.counters[loop_id])
    return values


def _into_loops(copy: Loop, refs: list[Ref]) -> Loop:
    """`copy` holding the references inside it (and its children theirs)."""
    mine = tuple(r for r in refs if copy.id in r.loops)
    children = tuple(_into_loops(c, refs) for c in copy.children)
    return replace(copy, refs=mine, children=children)
