"""Scratch arrays: a local array each iteration writes before it reads it.

`double t[8];` declared before the loop, filled by every iteration and read only
after that filling, carries no value from one iteration to the next: the
dependences through it are only reuse of storage, and a private copy per
thread (`private(t)`) removes them. The proof, per array and loop:

- it is an array object of this function (not a parameter, a global, a
  `static` or a pointer: `private(p)` would copy a pointer, not its buffer),
  of a known, small size (a private copy lives on each thread's stack), that
  the function only ever indexes (its address never leaves);
- every reference in the loop has affine subscripts (or `e % m` with `e >= 0`)
  over inner loops with affine bounds and symbols the loop never changes;
- the writes that run in every iteration, unconditionally and in full, before
  the first read, cover every element any read of the iteration touches
  (checked with isl, for every value of the symbols and of the loop variable);
- no read of it can see a value the loop left (none in a loop around it, and
  every read after it follows writes of the whole array, or sits in a later
  loop whose iterations write what they read first), so no value is lost when
  the private copies vanish.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from accls.analysis.scratch_space import (
    ElementSpace,
    Refused,
    aligned,
    statement_before,
    union,
)
from accls.frontend import Function, Loop, Poly, Ref, SourceFile, Var
from accls.frontend.exprs import expression_poly

if TYPE_CHECKING:
    import islpy as isl

__all__ = ["MAX_ELEMENTS", "array_size", "covers_reads", "scratch_arrays"]

MAX_ELEMENTS = 16384
"""The most elements a private copy may have: each thread (or GPU lane) holds one."""


_LEAVES = re.compile(r"\b(break|continue|return|goto|longjmp|exit|abort)\b")


def array_size(var: Var, constants: Mapping[str, int]) -> int | None:
    """The element count of a fixed-size array, or None."""
    count = 1
    for dim in var.dims:
        poly = expression_poly(dim) if dim else None
        if poly is None:
            return None
        value = poly.substitute({k: Poly.const(v) for k, v in constants.items()})
        if not value.is_constant or value.constant <= 0:
            return None
        count *= value.constant
    return count


def _candidate(
    name: str, loop: Loop, fn: Function, source: SourceFile, size: int | None
) -> bool:
    """A local array object of this function, of a small known size, never escaping."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or var.static or var.volatile:
        return False
    if not var.dims or "*" in var.levels or var.pointers or var.unknown_shape:
        return False
    if fn.declarations(name) != 1 or name in source.global_names:
        return False
    if any(v.name == name for v in loop.locals):
        return False  # declared in the body: each iteration's own already
    if var.address_taken or var.leaves or size is None or size > MAX_ELEMENTS:
        return False
    for ref in fn.refs:
        base = ref.name.replace("->", ".").split(".")[0]
        if base != name:
            continue
        # A bare use passes or stores its address; a member is a struct element.
        if ref.name != name or not ref.subscripts or ref.deref or ref.escapes:
            return False
        if len(ref.subscripts) != len(var.dims):
            return False
    return True


def _outer(loop: Loop) -> tuple[int, ...] | None:
    """The constructs around `loop` in its function, outermost first."""
    around = next((r.context for r in loop.refs if loop.id in r.context), None)
    return None if around is None else around[: around.index(loop.id)]


def _dead_after(
    name: str, loop: Loop, fn: Function, killed: Callable[[], bool]
) -> bool:
    """No read of `name` outside the loop can see a value the loop left.

    A read after the loop is fine when `killed()`: writes of the whole array
    run first.
    """
    outer = _outer(loop)
    if outer is None:
        return False
    after = False
    for ref in fn.refs:
        if ref.name != name or not ref.is_read:
            continue
        start = ref.span.start_byte
        if loop.span.start_byte <= start < loop.span.end_byte:
            continue
        after = after or start >= loop.span.end_byte
        # Before the loop but inside a construct around it (a loop, perhaps):
        # it may run again after this loop.
        if start < loop.span.start_byte and outer and ref.context[:1] == outer[:1]:
            return False
    return not after or killed()


def _whole(var: Var, constants: Mapping[str, int]) -> isl.Set | None:
    """Every element of a C array of constant extents."""
    import islpy

    cons: list[str] = []
    for pos, dim in enumerate(var.dims):
        poly = expression_poly(dim) if dim else None
        if poly is None:
            return None
        value = poly.substitute({k: Poly.const(v) for k, v in constants.items()})
        if not value.is_constant:
            return None
        cons.append(f"0 <= e{pos} < {value.constant}")
    names = ", ".join(f"e{k}" for k in range(len(var.dims)))
    return islpy.Set(f"{{ [{names}] : {' and '.join(cons)} }}")


def _killed_after(
    name: str,
    loop: Loop,
    fn: Function,
    source: SourceFile,
    var: Var,
    space: ElementSpace,
) -> bool:
    """The first read after the loop follows writes that set the whole array.

    The writes sit at the loop's own level (in the same constructs), run
    unconditionally and in full, and nothing between the loop and the read
    leaves that level (`break`, `return`, ...). C only.
    """
    after = sorted(
        (
            r
            for r in fn.refs
            if r.name == name and r.span.start_byte >= loop.span.end_byte
        ),
        key=lambda r: r.span.start_byte,
    )
    reads = [r for r in after if r.is_read]
    outer = _outer(loop)
    whole = _whole(var, space.constants)
    if outer is None or whole is None or any(r.fortran for r in after):
        return False
    first = reads[0]
    later = _loop_around(first, outer, space)
    if later is not None:
        return _rewritten_in(name, loop, later, fn, source, var, space)
    covered: isl.Set | None = None
    last = loop.span.end_byte
    for ref in after:
        if (
            ref.is_read
            or ref.guarded
            or ref.atomic
            or ref.context[: len(outer)] != outer
        ):
            continue
        chain = ref.context[len(outer) :]
        if any(c < 0 or c not in space.inner for c in chain):
            continue
        end = space.inner[chain[0]].span.end_byte if chain else None
        if end is not None and end > first.span.start_byte:
            continue
        if end is None and not statement_before(source, ref, first):
            continue
        try:
            found = space.elements(ref, exact=True, chain=chain)
        except Refused:
            continue
        covered = found if covered is None else union(covered, found)
        last = max(last, end if end is not None else ref.span.end_byte)
    if covered is None:
        return False
    if _LEAVES.search(source.code[loop.span.end_byte : last]):
        return False  # a path from the loop that skips a write
    whole, covered = aligned(whole, covered)
    return bool(whole.is_subset(covered))


def _loop_around(ref: Ref, outer: tuple[int, ...], space: ElementSpace) -> Loop | None:
    """The loop at the level of `outer` that `ref` sits in, if any."""
    if ref.context[: len(outer)] != outer or len(ref.context) <= len(outer):
        return None
    return space.inner.get(ref.context[len(outer)])


def _rewritten_in(
    name: str,
    loop: Loop,
    later: Loop,
    fn: Function,
    source: SourceFile,
    var: Var,
    space: ElementSpace,
) -> bool:
    """True when `later`, holding the first read after `loop`, rewrites first.

    Every iteration of `later` writes what it reads before reading it, and
    what follows `later` is killed too.
    """
    if _LEAVES.search(source.code[loop.span.end_byte : later.span.start_byte]):
        return False
    written = frozenset(
        r.name for r in later.refs if r.is_write and not r.subscripts and not r.deref
    )
    if not later.var or not _proved(
        name, later, source, ElementSpace(later, written, space.constants)
    ):
        return False
    rest = [
        r
        for r in fn.refs
        if r.name == name and r.is_read and r.span.start_byte >= later.span.end_byte
    ]
    return not rest or _killed_after(name, later, fn, source, var, space)


def _kill_test(
    name: str,
    loop: Loop,
    fn: Function,
    source: SourceFile,
    var: Var,
    constants: Mapping[str, int],
) -> Callable[[], bool]:
    """`_killed_after` for `name`, run only when a read follows the loop."""

    def test() -> bool:
        loops = {m.id: m for m in source.loops() if m.function == fn.name}
        space = ElementSpace(loop, frozenset(), constants, loops)
        return _killed_after(name, loop, fn, source, var, space)

    return test


def _covering(ref: Ref, loop: Loop, space: ElementSpace) -> tuple[bool, Loop | None]:
    """(runs in full in every iteration, its outermost inner loop) of a write."""
    if ref.is_read or ref.guarded or ref.atomic or loop.id not in ref.context:
        return False, None
    context = ref.context[ref.context.index(loop.id) + 1 :]
    if any(c < 0 or c not in space.inner for c in context):
        return False, None  # under a branch, a `while`, or after a `continue`
    return True, space.inner[context[0]] if context else None


def _proved(name: str, loop: Loop, source: SourceFile, space: ElementSpace) -> bool:
    refs = [r for r in loop.refs if r.name == name]
    reads = [r for r in refs if r.is_read]
    if not reads or loop.exits:
        return False  # no value read: the dependences are outputs (lastprivate)
    writes: list[tuple[Ref, Loop | None, isl.Set]] = []
    for ref in refs:
        full, outer = _covering(ref, loop, space)
        if not full:
            continue
        try:
            writes.append((ref, outer, space.elements(ref, exact=True)))
        except Refused:
            continue
    for read in reads:
        covered: isl.Set | None = None
        for write, outer, found in writes:
            # Done before the read starts: its whole inner loop, or its statement.
            if outer is not None and outer.span.end_byte > read.span.start_byte:
                continue
            if outer is None and not statement_before(source, write, read):
                continue
            covered = found if covered is None else union(covered, found)
        if covered is None:
            return False
        try:
            touched = space.elements(read, exact=False)
        except Refused:
            return False
        touched, whole = aligned(touched, covered)
        if not touched.is_subset(whole):
            return False
    return True


def covers_reads(
    name: str, loop: Loop, source: SourceFile, space: ElementSpace
) -> bool:
    """Each iteration writes, every element of `name` it reads first."""
    return _proved(name, loop, source, space)


def scratch_arrays(
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
    names: Iterable[str],
    constants: Mapping[str, int],
) -> frozenset[str]:
    """The arrays among `names` each iteration of `loop` fully writes before reading."""
    if fn is None or not loop.var or loop.opaque:
        return frozenset()
    written = frozenset(
        r.name for r in loop.refs if r.is_write and not r.subscripts and not r.deref
    )
    out: set[str] = set()
    for name in sorted(set(names)):
        var = fn.lookup(name)
        size = array_size(var, constants) if var is not None else None
        if not _candidate(name, loop, fn, source, size):
            continue
        if var is None or not _dead_after(
            name, loop, fn, _kill_test(name, loop, fn, source, var, constants)
        ):
            continue
        if _proved(name, loop, source, ElementSpace(loop, written, constants)):
            out.add(name)
    return frozenset(out)
