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
- no read of it can run after the loop (none after it, none in a loop around
  it), so no value is lost when the private copies vanish.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from accls.analysis.modulo_sections import dividend
from accls.frontend import Function, Loop, Poly, Ref, SourceFile, Var
from accls.frontend.exprs import expression_poly

if TYPE_CHECKING:
    import islpy as isl

__all__ = ["MAX_ELEMENTS", "scratch_arrays"]

MAX_ELEMENTS = 16384
"""The most elements a private copy may have: each thread (or GPU lane) holds one."""


class _Refused(Exception):
    """The array cannot be proved private: the reason is not kept."""


def _size(var: Var, constants: Mapping[str, int]) -> int | None:
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


def _dead_after(name: str, loop: Loop, fn: Function) -> bool:
    """No read of `name` outside the loop can run after it."""
    around = next((r.context for r in loop.refs if loop.id in r.context), None)
    if around is None:
        return False
    outer = around[: around.index(loop.id)]
    for ref in fn.refs:
        if ref.name != name or not ref.is_read:
            continue
        start = ref.span.start_byte
        if loop.span.start_byte <= start < loop.span.end_byte:
            continue
        if start >= loop.span.end_byte:
            return False
        # Before the loop but inside a construct around it (a loop, perhaps):
        # it may run again after this loop.
        if outer and ref.context[:1] == outer[:1]:
            return False
    return True


class _Space:
    """Names isl sets of one array's elements, over one loop's symbols."""

    def __init__(
        self, loop: Loop, written: frozenset[str], constants: Mapping[str, int]
    ) -> None:
        self.loop = loop
        self.written = written
        self.constants = constants
        self.inner = {m.id: m for m in loop.walk()[1:]}
        self.ids: dict[str, str] = {}

    def name(self, symbol: str) -> str:
        return self.ids.setdefault(symbol, f"p{len(self.ids)}")

    def affine(self, poly: Poly | None, dims: Mapping[str, str]) -> str:
        """The isl text of an affine polynomial; a symbol the loop changes refuses."""
        if poly is None or not poly.is_affine:
            raise _Refused
        parts: list[str] = []
        for mono, coeff in poly.terms:
            if not mono:
                parts.append(str(coeff))
                continue
            sym = mono[0]
            if sym in self.constants and sym not in dims:
                parts.append(str(coeff * self.constants[sym]))
            elif sym in dims:
                parts.append(f"{coeff}*{dims[sym]}")
            elif sym == self.loop.var or sym not in self.written:
                parts.append(f"{coeff}*{self.name(sym)}")
            else:
                raise _Refused
        return " + ".join(parts) or "0"

    def frame(self, ref: Ref, exact: bool) -> tuple[dict[str, str], list[str]]:
        """The inner loop variables around `ref`, and their bounds' constraints.

        `exact`: the bounds must describe each inner loop's iterations exactly
        (a write that covers); otherwise a superset will do (a read).
        """
        dims: dict[str, str] = {}
        cons: list[str] = []
        for lid in ref.loops[ref.loops.index(self.loop.id) + 1 :]:
            inner = self.inner.get(lid)
            if inner is None or not inner.var or inner.step is None:
                raise _Refused
            if exact and (abs(inner.step) != 1 or inner.limits or inner.exits):
                raise _Refused
            var = f"v{len(dims)}"
            low = self.affine(inner.lower, dims)
            high = self.affine(inner.upper, dims)
            dims[inner.var] = var
            op = inner.cond_op
            if inner.step > 0 and op in ("<", "<="):
                cons += [f"{var} >= {low}", f"{var} {op} {high}"]
            elif inner.step < 0 and op in (">", ">="):
                cons += [f"{var} <= {low}", f"{var} {op} {high}"]
            else:
                raise _Refused
        return dims, cons

    def elements(self, ref: Ref, exact: bool) -> isl.Set:
        """The elements `ref` touches in one iteration of the loop."""
        import islpy

        dims, frame = self.frame(ref, exact)
        cons: list[str] = []
        extra: list[str] = []
        for pos, sub in enumerate(ref.subscripts):
            if sub.indirect:
                raise _Refused
            if sub.poly is not None:
                cons.append(f"e{pos} = {self.affine(sub.poly, dims)}")
                continue
            modulo = None if exact else _modulo(sub.text)
            if modulo is None:
                raise _Refused
            top, bottom = modulo
            left = self.affine(top, dims)
            size = self.affine(bottom, dims)
            # Refused below unless `left >= 0` holds over the whole frame.
            extra.append(f"{left} < 0")
            cons.append(f"0 <= e{pos} < {size}")
        out = [f"e{k}" for k in range(len(ref.subscripts))]
        params = ", ".join(self.ids.values())
        hidden = ", ".join(dims.values())
        body = " and ".join([*frame, *cons]) or "true"
        inner = f"exists ({hidden} : {body})" if hidden else body
        for neg in extra:
            probe = " and ".join([*frame, neg])
            if not islpy.Set(f"[{params}] -> {{ [{hidden}] : {probe} }}").is_empty():
                raise _Refused
        return islpy.Set(f"[{params}] -> {{ [{', '.join(out)}] : {inner} }}")


def _modulo(text: str) -> tuple[Poly, Poly] | None:
    """(`e`, `m`) of a subscript `e % m`, both polynomials, or None."""
    left = dividend(text)
    if left is None:
        return None
    whole = text.strip()
    right = whole[whole.find("%", len(left)) + 1 :]
    top, bottom = expression_poly(left), expression_poly(right)
    if top is None or bottom is None:
        return None
    return top, bottom


def _aligned(left: isl.Set, right: isl.Set) -> tuple[isl.Set, isl.Set]:
    """The two sets over the same parameters."""
    left = left.align_params(right.get_space())
    return left, right.align_params(left.get_space())


def _union(left: isl.Set, right: isl.Set) -> isl.Set:
    left, right = _aligned(left, right)
    return left.union(right)


def _statement_before(source: SourceFile, write: Ref, read: Ref) -> bool:
    """True when a statement ends between `write` and `read` (in the text)."""
    between = source.code[write.span.end_byte : read.span.start_byte]
    if not write.fortran:
        return ";" in between or "}" in between
    lines = between.split("\n")
    return ";" in between or any(not ln.rstrip().endswith("&") for ln in lines[:-1])


def _covering(ref: Ref, loop: Loop, space: _Space) -> tuple[bool, Loop | None]:
    """(runs in full in every iteration, its outermost inner loop) of a write."""
    if ref.is_read or ref.guarded or ref.atomic or loop.id not in ref.context:
        return False, None
    context = ref.context[ref.context.index(loop.id) + 1 :]
    if any(c < 0 or c not in space.inner for c in context):
        return False, None  # under a branch, a `while`, or after a `continue`
    return True, space.inner[context[0]] if context else None


def _proved(name: str, loop: Loop, source: SourceFile, space: _Space) -> bool:
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
        except _Refused:
            continue
    for read in reads:
        covered: isl.Set | None = None
        for write, outer, found in writes:
            # Done before the read starts: its whole inner loop, or its statement.
            if outer is not None and outer.span.end_byte > read.span.start_byte:
                continue
            if outer is None and not _statement_before(source, write, read):
                continue
            covered = found if covered is None else _union(covered, found)
        if covered is None:
            return False
        try:
            touched = space.elements(read, exact=False)
        except _Refused:
            return False
        touched, whole = _aligned(touched, covered)
        if not touched.is_subset(whole):
            return False
    return True


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
        size = _size(var, constants) if var is not None else None
        if not _candidate(name, loop, fn, source, size):
            continue
        if not _dead_after(name, loop, fn):
            continue
        if _proved(name, loop, source, _Space(loop, written, constants)):
            out.add(name)
    return frozenset(out)
