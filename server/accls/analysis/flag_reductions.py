"""Flags every iteration sets alike: `changed = 0; for (...) if (c) changed = 1;`.

A scalar written under a condition and used after the loop is refused (its last
value depends on the last writer), and identical stores from two threads still
race. When the loop never reads it and every store writes one constant `c`,
its value after the loop is `c` if any iteration stored, and the value it came
in with otherwise: `reduction(max:)` gives exactly that when the incoming value
is at most `c` (each thread's copy starts at the lowest value and is raised to
`c` where it stores), `reduction(min:)` when it is at least `c`. The incoming
value is bounded without following the flow: every store to the flag in the
function, its initialiser first, writes a constant, so it is one of them.
Constants stay within 0..127, which every integer or floating type holds
unchanged; the flag is a local of a C function whose address is never taken,
so no callee reads or sets it behind the loop's back (C++ references and
Fortran's arguments may).
"""

from __future__ import annotations

import re

from accls.analysis.model import Obstacle, ScalarClass, ScalarFact
from accls.analysis.reduction_refusals import FLOATING
from accls.frontend import Function, Loop, RedOp, Ref, SourceFile, is_cpp
from accls.frontend.fortran_form import is_fortran

__all__ = ["flag_reduction"]

_ARITHMETIC = FLOATING | {
    "char", "short", "int", "long", "long long", "unsigned", "unsigned int",
    "unsigned char", "unsigned short", "unsigned long", "unsigned long long",
    "signed char", "_Bool", "bool", "size_t",
}  # fmt: skip
_STORE = re.compile(r"\s*=\s*(\d{1,3})[uUlL]*\s*[;,)]")


def _stored(ref: Ref, data: bytes) -> int | None:
    """The constant 0..127 a plain store `x = c;` writes, else None."""
    if ref.is_read or ref.deref or ref.member or ref.subscripts or ref.escapes:
        return None
    after = data[ref.span.end_byte : ref.span.end_byte + 40]
    found = _STORE.match(after.decode("utf-8", "replace"))
    value = int(found.group(1)) if found is not None else 128
    return value if value <= 127 else None


def _incoming(name: str, fn: Function, data: bytes) -> list[int | None]:
    """What each store to `name` in `fn` writes (None: not a constant)."""
    refs = sorted(
        (r for r in fn.refs if r.name == name), key=lambda r: r.span.start_byte
    )
    if not refs or not refs[0].is_write:
        return [None]  # read before any store: the value it comes in with is unknown
    return [_stored(r, data) for r in refs if r.is_write]


def flag_reduction(
    loop: Loop, obstacle: Obstacle, refs: list[Ref], source: SourceFile
) -> ScalarFact | None:
    """The reduction a refused conditional flag is, or None when it is not one."""
    name = obstacle.variable or ""
    fn = source.function(loop.function)
    decl = fn.lookup(name) if fn is not None else None
    if (
        fn is None
        or is_cpp(source.path)  # a reference parameter or capture may reach it
        or is_fortran(source.path)  # arguments are passed by reference
        or decl is None
        or decl.address_taken
        or decl.static  # a recursive call in the loop would share it
        or decl.scope != "local"
        or decl.pointers
        or decl.dims
        or decl.type not in _ARITHMETIC
    ):
        return None
    data = source.data
    body = data[fn.span.start_byte : fn.span.end_byte].decode("utf-8", "replace")
    if re.search(rf"(?<!&)&\s*{re.escape(name)}\b", body):
        return None
    mine = {_stored(r, data) if r.is_write else None for r in refs}
    everywhere = _incoming(name, fn, data)
    if len(mine) != 1 or None in mine or None in everywhere:
        return None
    (value,) = mine
    assert value is not None
    known = [v for v in everywhere if v is not None]
    if value == max(known):
        op = RedOp.MAX
    elif value == min(known):
        op = RedOp.MIN
    else:
        return None
    return _fact(name, value, known, op, obstacle.line)


def _fact(name: str, value: int, known: list[int], op: RedOp, line: int) -> ScalarFact:
    """The reduction, with the operators a user may write for it to the same effect.

    `||` (`&&`) gives `value` 1 (0) from incoming 0 or 1; `|` (`&`) gives
    `value` when every incoming value's bits are within (contain) its bits.
    """
    boolean = set(known) <= {0, 1}
    if op is RedOp.MAX:
        logical = RedOp.LOR if boolean and value == 1 else None
        bits = RedOp.BOR if all(v | value == value for v in known) else None
    else:
        logical = RedOp.LAND if boolean and value == 0 else None
        bits = RedOp.BAND if all(v & value == value for v in known) else None
    return ScalarFact(
        name=name,
        cls=ScalarClass.REDUCTION,
        op=op,
        also=tuple(o for o in (logical, bits) if o is not None),
        line=line,
        why=f"`{name}` is only set to `{value}` here (line {line}), the "
        f"{op} of the constants the function stores in it: after the loop, "
        f"`{value}` if any iteration set it, as `{op}` of the copies gives",
    )
