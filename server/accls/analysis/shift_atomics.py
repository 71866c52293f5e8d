"""Arrays whose only accesses are shifts of one direction: atomic updates commute.

`a[k] <<= p` then `a[k] <<= q` is `a[k] << (p + q)` in either order for an
unsigned element (the bits shifted out are lost either way); `>>=` of an
unsigned or non-negative value likewise, and of a negative signed one too (a
floor division by a power of two). So a loop whose only carried effect on an
array is such shifts, all `<<=` or all `>>=`, runs in parallel with each shift
made `atomic update`, even where the element is the same for every iteration
(`a[x]` in a loop over `y`): no reduction clause spells a shift, the atomic is
the only way. Not these: `<<=` mixed with `>>=` or with `+=` (they do not
commute), a left shift of a signed element (undefined for a negative value), an
amount that reads the array (the element's own value), and a shift whose value
is used (`v = a[k] <<= 1`: a capture sees the order; such a shift does not
start its line, where the atomic would go).
"""

from __future__ import annotations

from collections.abc import Collection

from accls.analysis.scalars import is_scalar_ref
from accls.frontend import AccessKind, Function, Loop, Ref, SourceFile, Var

__all__ = ["SHIFT_OPS", "shift_atomics"]

SHIFT_OPS = frozenset({"<<=", ">>="})

_INTEGER_WORDS = frozenset({"char", "short", "int", "long", "unsigned", "signed"})
_UNSIGNED_NAMES = frozenset({"size_t", "uint32_t", "uint64_t", "uintptr_t"})
_NARROW_UNSIGNED_NAMES = frozenset({"uint8_t", "uint16_t"})
_SIGNED_NAMES = frozenset(
    {"ssize_t", "int8_t", "int16_t", "int32_t", "int64_t", "intptr_t", "ptrdiff_t"}
)


def _declaration(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    """The one declaration of `name` the function sees; None if several or none."""
    if fn is not None:
        if fn.declarations(name) > 1:
            return None
        found = fn.lookup(name)
        if found is not None:
            return found
    hits = [g for g in source.globals if g.name == name]
    return hits[0] if len(hits) == 1 else None


def _signedness(var: Var, source: SourceFile) -> str:
    """The kind of an integer element type; "" for anything else.

    `unsigned` (of `int`'s rank or wider), `narrow` (unsigned, shifted as an
    `int`) or `signed`.
    """
    type_ = var.type.removeprefix("std::")
    base = source.types.element_scalar(type_) or type_
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


def _statement_alone(data: bytes, ref: Ref) -> bool:
    """The shift starts its line: its value feeds nothing (`v = a[k] <<= 1` does)."""
    start = ref.span.start_byte
    line_start = data.rfind(b"\n", 0, start) + 1
    return not data[line_start:start].strip()


def _commutes(op: str, signedness: str) -> bool:
    """Whether shifts of one direction of such an element commute.

    Left shifts wrap only in an unsigned type of `int`'s rank or wider: a
    narrow one is shifted as an `int`, which another order may overflow.
    """
    if op == "<<=":
        return signedness == "unsigned"
    return signedness in ("unsigned", "narrow", "signed")


def shift_atomics(
    loop: Loop,
    carried_arrays: Collection[str],
    fn: Function | None,
    source: SourceFile,
) -> dict[str, list[Ref]]:
    """Arrays the loop carries a dependence on whose accesses are all one shift."""
    if loop.fortran:
        return {}
    groups: dict[str, list[Ref]] = {}
    for ref in loop.refs:
        if not is_scalar_ref(ref):
            groups.setdefault(ref.name, []).append(ref)
    out: dict[str, list[Ref]] = {}
    for name, refs in groups.items():
        if name not in carried_arrays:
            continue
        ops = {r.update_op for r in refs}
        if len(ops) != 1 or not ops <= SHIFT_OPS:
            continue
        if any(r.kind is not AccessKind.UPDATE or r.atomic for r in refs):
            continue
        if any(r.member or r.field or r.deref for r in refs):
            continue
        if not all(_statement_alone(source.data, r) for r in refs):
            continue
        var = _declaration(name, fn, source)
        if var is None or not _commutes(next(iter(ops)), _signedness(var, source)):
            continue
        out[name] = refs
    return out
