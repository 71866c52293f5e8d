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

from accls.analysis.integer_kinds import declaration, shift_commutes, signedness
from accls.analysis.scalars import is_scalar_ref
from accls.frontend import AccessKind, Function, Loop, Ref, SourceFile

__all__ = ["SHIFT_OPS", "shift_atomics"]

SHIFT_OPS = frozenset({"<<=", ">>="})


def _statement_alone(data: bytes, ref: Ref) -> bool:
    """The shift starts its line: its value feeds nothing (`v = a[k] <<= 1` does)."""
    start = ref.span.start_byte
    line_start = data.rfind(b"\n", 0, start) + 1
    return not data[line_start:start].strip()


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
        var = declaration(name, fn, source)
        kind = signedness(var, source.types) if var is not None else ""
        if not shift_commutes(next(iter(ops)), kind):
            continue
        out[name] = refs
    return out
