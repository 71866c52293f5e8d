"""Heap scratch buffers: a block from `malloc` each iteration fills before reading.

`double *t = malloc(m * sizeof(double));` before the loop, filled by every
iteration and read only after that filling, carries no value between
iterations, like the fixed-size arrays of `scratch_arrays`. A private copy
needs the buffer's extent, so OpenACC spells it `private(t[0:m])`, and
OpenMP has no clause for it (`private(t)` copies the pointer, not the block).
The proof, per pointer and loop:

- a local pointer of this function, initialised by its declaration from
  `malloc`/`calloc` with a known element count, never assigned again, its
  address never taken, its value never copied, passed or stored (only `t[e]`,
  and `free(t)` after the loop), so no other name reaches the block;
- the element count's symbols keep their value from the allocation to the
  loop (locals or parameters written only before the allocation, whose
  address is never taken), so `t[0:count]` at the loop is the whole block;
- every iteration writes what it reads first (`scratch_arrays.covers_reads`);
- no read of the block outside the loop can see a value the loop left.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from accls.analysis.scratch_arrays import covers_reads
from accls.analysis.scratch_space import ElementSpace
from accls.frontend import Function, Loop, Ref, SourceFile, Var
from accls.frontend.exprs import expression_poly

__all__ = ["heap_scratch"]

_FREE_BEFORE = re.compile(r"\bfree\s*\(\s*$")
_CLOSE = re.compile(r"^\s*\)")
_NULL = r"(?:NULL|nullptr|0)"
_TEST_AFTER = re.compile(rf"^\s*[!=]=\s*{_NULL}\b")
_TEST_BEFORE = re.compile(rf"(?:\b{_NULL}\s*[!=]=|!|\bif\s*\()\s*$")


def _around(ref: Ref, source: SourceFile) -> tuple[str, str]:
    """Some text before and after a reference."""
    start, end = ref.span.start_byte, ref.span.end_byte
    return source.code[max(0, start - 40) : start], source.code[end : end + 20]


def _freed(ref: Ref, source: SourceFile) -> bool:
    """True for the bare `t` of `free(t)`."""
    before, after = _around(ref, source)
    return bool(_FREE_BEFORE.search(before) and _CLOSE.match(after))


def _null_test(ref: Ref, source: SourceFile) -> bool:
    """True for the `t` of `t == NULL`, `!t` or `if (t)`: its value goes nowhere."""
    before, after = _around(ref, source)
    if _TEST_AFTER.match(after):
        return True
    found = _TEST_BEFORE.search(before)
    if found is None:
        return False
    return not found.group(0).startswith("if") or bool(_CLOSE.match(after))


def _pointer(var: Var | None, fn: Function, source: SourceFile, loop: Loop) -> bool:
    """A fresh local pointer to one block of a known count, no other name for it."""
    if var is None or var.scope != "local" or var.static or var.volatile:
        return False
    if var.pointers != 1 or var.dims or var.levels not in ("", "*"):
        return False
    if not var.fresh or var.device or not var.alloc_count or var.unknown_shape:
        return False
    if var.address_taken or var.leaves or var.span is None:
        return False
    name = var.name
    if fn.declarations(name) != 1 or name in source.global_names:
        return False
    return not any(v.name == name for v in loop.locals)


def _uses_ok(var: Var, loop: Loop, fn: Function, source: SourceFile) -> bool:
    """Only `t[e]` uses, the declaration's one assignment, and `free(t)` after."""
    assert var.span is not None
    outer = next((r.context for r in loop.refs if loop.id in r.context), None)
    if outer is None:
        return False
    outer = outer[: outer.index(loop.id)]
    for ref in fn.refs:
        if ref.name.replace("->", ".").split(".")[0] != var.name:
            continue
        if ref.name != var.name or ref.fortran or ref.deref or ref.escapes:
            return False
        start = ref.span.start_byte
        inside = loop.span.start_byte <= start < loop.span.end_byte
        if not ref.subscripts:
            if ref.is_write:
                if start != var.span.start_byte or ref.is_read:
                    return False  # assigned again: another block
            elif _null_test(ref, source):
                continue
            elif inside or start < loop.span.end_byte or not _freed(ref, source):
                return False  # its value copied, compared or passed
            continue
        if len(ref.subscripts) != 1:
            return False
        if inside or not ref.is_read:
            continue
        if start >= loop.span.end_byte:
            return False  # read after the loop: the last values may be needed
        if outer and ref.context[:1] == outer[:1]:
            return False  # before, but in a construct that may run it again
    return True


def _count_fixed(
    var: Var, loop: Loop, fn: Function, constants: Mapping[str, int]
) -> bool:
    """The element count means at the loop what it meant at the allocation."""
    assert var.span is not None
    poly = expression_poly(var.alloc_count)
    if poly is None or not poly.is_affine:
        return False
    for mono, _ in poly.terms:
        for sym in mono:
            if sym in constants:
                continue
            decl = fn.lookup(sym)
            if decl is None or decl.scope == "global" or decl.address_taken:
                return False
            if decl.pointers or decl.dims or any(v.name == sym for v in loop.locals):
                return False
            if fn.declarations(sym) != 1:
                return False
            if any(
                r.name == sym
                and r.is_write
                and r.span.start_byte >= var.span.start_byte
                for r in fn.refs
            ):
                return False  # may differ at the loop
    return True


def heap_scratch(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    names: Iterable[str],
    constants: Mapping[str, int],
) -> dict[str, str]:
    """Each pointer among `names` whose block is scratch of `loop`, with its count."""
    if fn is None or not loop.var or loop.opaque:
        return {}
    written = frozenset(
        r.name for r in loop.refs if r.is_write and not r.subscripts and not r.deref
    )
    out: dict[str, str] = {}
    for name in sorted(set(names)):
        var = fn.lookup(name)
        if var is None or not _pointer(var, fn, source, loop):
            continue
        if not _uses_ok(var, loop, fn, source):
            continue
        if not _count_fixed(var, loop, fn, constants):
            continue
        if covers_reads(name, loop, source, ElementSpace(loop, written, constants)):
            out[name] = var.alloc_count
    return out
