"""Scratch arrays a callee fills: `fill_coeffs(x[i], y[i], tmp)` then reads of `tmp`.

`double tmp[5];` declared before the loop, passed whole to a function of the
file that writes `tmp[0]` to `tmp[4]` on every call before reading any of them
(a must-write summary), then read at those elements only: each iteration
writes what it reads first, so a private copy per thread (`private(tmp)`)
removes the reuse of storage, exactly as when the loop body fills it itself.

The summary of the callee: every use of the pointer parameter is an element at
a literal offset, an element a loop of literal bounds writes in full
(counted_fills), or the pointer handed, as received, to another such callee;
each write runs on every call (no branch, loop or construct around it, no
`return` before it), and each read follows, in an earlier statement, a write
of the same element. In the loop: the array is a small local object of the
function (scratch_arrays' conditions, except the whole-array argument), used
nowhere outside the loop, passed whole to one call that runs in every
iteration, and read only after that call at elements it fills (literal ones,
or over inner loops of literal bounds).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from accls.analysis.callee_scratch import every_iteration, unconditional
from accls.analysis.callee_slices import pointer_parameter
from accls.analysis.counted_fills import counted_fill
from accls.analysis.counted_offsets import counted_range, function_loops
from accls.analysis.scratch_arrays import MAX_ELEMENTS, array_size
from accls.frontend import Call, Function, Loop, Ref, SourceFile

__all__ = ["filled_arrays", "filled_elements"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEPTH = 3  # callees followed from the loop's call


def _literal(ref_subscripts: tuple[object, ...]) -> int | None:
    """The offset of a one-subscript element at a literal index, or None."""
    if len(ref_subscripts) != 1:
        return None
    text = getattr(ref_subscripts[0], "text", "").strip()
    return int(text) if text.isdigit() else None


def filled_elements(
    fn: Function, index: int, source: SourceFile, depth: int = _DEPTH
) -> frozenset[int] | None:
    """The elements `fn` writes through pointer parameter `index` before reading them.

    Each on every call; None when `fn` may use the pointer any other way.
    """
    if depth == 0 or source.language != "c":
        return None
    param = pointer_parameter(fn, index)
    if param is None:
        return None
    written: dict[int, int] = {}  # offset -> end byte of its first write
    reads: list[tuple[int, int]] = []  # (offset, start byte)
    passed: set[int] = set()  # start bytes of whole-pointer arguments
    for call in fn.call_sites:
        if param.name not in call.args:
            continue
        callee = source.function(call.name)
        if callee is None or callee is fn or call.args.count(param.name) != 1:
            return None
        if len(call.args) != len(callee.params):
            return None
        if not unconditional(fn, call.span.start_byte, source):
            return None
        inner = filled_elements(callee, call.args.index(param.name), source, depth - 1)
        if inner is None:
            return None
        for value in inner:
            written.setdefault(value, call.span.end_byte)
        passed.add(call.span.start_byte)
    for ref in sorted(fn.refs, key=lambda r: r.span.start_byte):
        if ref.name.strip() != param.name:
            start = _IDENT.match(ref.name.strip())
            if start is not None and start.group(0) == param.name:
                return None  # `c->f`, `(c + 1)`: not an element at an offset
            continue
        if not ref.subscripts and not ref.deref:
            if ref.is_write or ref.escapes:
                return None  # the pointer itself changes, or is stored
            if any(
                c.span.start_byte <= ref.span.start_byte < c.span.end_byte
                and c.span.start_byte in passed
                for c in fn.call_sites
            ):
                continue  # handed on whole to a callee summarised above
            return None
        if ref.escapes or ref.atomic:
            return None
        offset = 0 if ref.deref and not ref.subscripts else None
        if not ref.deref:
            offset = _literal(ref.subscripts)
        if offset is None and ref.is_write and not ref.is_read:
            counted = counted_fill(ref, fn, source)
            if counted is None:
                return None
            for value in range(counted[0], counted[1] + 1):
                written[value] = min(written.get(value, counted[2]), counted[2])
            continue
        if offset is None:
            return None
        if ref.is_write and not ref.is_read:
            if not unconditional(fn, ref.span.start_byte, source) or ref.guarded:
                continue  # a write that may not run fills nothing
            if ref.context:
                continue  # inside a loop of the callee
            end = _statement_end(source, ref.span.end_byte)
            written[offset] = min(written.get(offset, end), end)
        else:
            reads.append((offset, ref.span.start_byte))
    if any(written.get(o, 1 << 62) > pos for o, pos in reads):
        return None  # a read that may see the caller's value
    return frozenset(written)


def _statement_end(source: SourceFile, pos: int) -> int:
    """The byte after the `;` that ends the statement holding `pos`."""
    end = source.data.find(b";", pos)
    return len(source.data) if end < 0 else end + 1


def _fills(call: Call, name: str, source: SourceFile) -> frozenset[int] | None:
    """The elements of `name` the call writes on every run, passed whole once."""
    if call.args.count(name) != 1:
        return None
    callee = source.function(call.name)
    found = [f for f in source.functions if f.name == call.name]
    if callee is None or len(found) != 1 or len(call.args) != len(callee.params):
        return None
    return filled_elements(callee, call.args.index(name), source)


def filled_arrays(
    loop: Loop, source: SourceFile, constants: Mapping[str, int]
) -> frozenset[str]:
    """The local arrays each iteration has a callee fill before it reads them."""
    fn = source.function(loop.function)
    if fn is None or not loop.var or loop.opaque or loop.exits:
        return frozenset()
    out: set[str] = set()
    for call in loop.calls:
        for name in set(call.args):
            if name.isidentifier() and _private(
                name, call, loop, fn, source, constants
            ):
                out.add(name)
    return frozenset(out)


def _private(
    name: str,
    call: Call,
    loop: Loop,
    fn: Function,
    source: SourceFile,
    constants: Mapping[str, int],
) -> bool:
    """True when `call` fills every element of `name` the iteration reads, first."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or var.static or var.volatile:
        return False
    if len(var.dims) != 1 or var.pointers or var.unknown_shape or "*" in var.levels:
        return False
    size = array_size(var, constants)
    if size is None or size > MAX_ELEMENTS or var.address_taken:
        return False
    if fn.declarations(name) != 1 or name in source.global_names:
        return False
    if any(v.name == name for v in loop.locals):
        return False  # declared in the body: each iteration's own already
    inside = loop.span.start_byte, loop.span.end_byte
    declared = var.span.start_byte if var.span is not None else -1
    uses = [
        r
        for r in fn.refs
        if r.name.replace("->", ".").split(".")[0].strip() == name
        and r.span.start_byte != declared
    ]
    if any(not inside[0] <= r.span.start_byte < inside[1] for r in uses):
        return False  # set or read outside the loop: a value may cross it
    if sum(1 for c in loop.calls if name in c.args) != 1:
        return False
    if not every_iteration(loop, call, source) or call.span.start_byte < 0:
        return False
    filled = _fills(call, name, source)
    if not filled:
        return False
    at_call = call.span.start_byte, call.span.end_byte
    for ref in (r for r in loop.refs if r.name == name):
        if at_call[0] <= ref.span.start_byte < at_call[1]:
            if ref.subscripts or ref.deref or ref.is_write or ref.escapes:
                return False
            continue  # the array passed whole
        if ref.name != name or ref.is_write or ref.deref or ref.escapes:
            return False
        if not _read_within(ref, fn, source, filled):
            return False
        if ref.span.start_byte < at_call[1] or loop.id not in ref.context:
            return False
    return True


def _read_within(
    ref: Ref, fn: Function, source: SourceFile, filled: frozenset[int]
) -> bool:
    """True when a read of the loop touches only elements in `filled`.

    A literal element, or `t[j]` over an inner loop of literal bounds
    (counted_offsets): every value it may take.
    """
    offset = _literal(ref.subscripts)
    if offset is not None:
        return offset in filled
    sub = ref.subscripts[0] if len(ref.subscripts) == 1 else None
    if sub is None or sub.indirect or sub.poly is None:
        return False
    found = counted_range(sub.poly, ref, fn, function_loops(fn, source))
    return found is not None and all(k in filled for k in range(found[0], found[1] + 1))
