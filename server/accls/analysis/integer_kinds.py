"""The integer kind of a variable's element type, and whether its shifts commute.

`a <<= p` then `a <<= q` is `a << (p + q)` in either order only where the bits
shifted out are lost either way: an unsigned type of `int`'s rank or wider. A
narrow unsigned one is shifted as an `int`, which another order may overflow,
and a left shift of a signed value is undefined when it overflows or the value
is negative. Right shifts commute for every integer type (a floor division).
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile, TypeTable, Var

__all__ = ["declaration", "shift_commutes", "signedness"]

_INTEGER_WORDS = frozenset({"char", "short", "int", "long", "unsigned", "signed"})
_UNSIGNED_NAMES = frozenset({"size_t", "uint32_t", "uint64_t", "uintptr_t"})
_NARROW_UNSIGNED_NAMES = frozenset({"uint8_t", "uint16_t"})
_SIGNED_NAMES = frozenset(
    {"ssize_t", "int8_t", "int16_t", "int32_t", "int64_t", "intptr_t", "ptrdiff_t"}
)


def declaration(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    """The one declaration of `name` the function sees; None if several or none."""
    return declaration_in(name, fn, source.globals)


def declaration_in(
    name: str, fn: Function | None, globals_: tuple[Var, ...]
) -> Var | None:
    """`declaration` from the file's globals alone."""
    if fn is not None:
        if fn.declarations(name) > 1:
            return None
        found = fn.lookup(name)
        if found is not None:
            return found
    hits = [g for g in globals_ if g.name == name]
    return hits[0] if len(hits) == 1 else None


def signedness(var: Var, types: TypeTable | None = None) -> str:
    """The kind of an integer element type; "" for anything else.

    `unsigned` (of `int`'s rank or wider), `narrow` (unsigned, shifted as an
    `int`) or `signed`. Without the file's typedefs, a typedef name not listed
    here is not known to be an integer.
    """
    type_ = var.type.removeprefix("std::")
    base = (types.element_scalar(type_) if types is not None else None) or type_
    if base in _UNSIGNED_NAMES:
        return "unsigned"
    if base in _NARROW_UNSIGNED_NAMES:
        return "narrow"
    if base in _SIGNED_NAMES:
        return "signed"
    words = set(base.split())
    if not words or not words <= _INTEGER_WORDS:
        return ""
    if "unsigned" in words:
        return "narrow" if words & {"char", "short"} else "unsigned"
    # A plain `char` may be either: it is not known to be unsigned.
    return "signed"


def shift_commutes(op: str, kind: str) -> bool:
    """Whether shifts of one direction (`op`) of an element of `kind` commute."""
    if op == "<<=":
        return kind == "unsigned"
    return kind in ("unsigned", "narrow", "signed")
