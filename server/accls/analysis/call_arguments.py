"""Call arguments in a loop: the reference recorded for one, and why it blocks."""

from __future__ import annotations

import re

from accls.analysis.field_paths import resolve_field, strip_casts, top_offset
from accls.analysis.field_sets import FieldSets
from accls.frontend import Call, Loop, Ref, SourceFile

__all__ = [
    "argument_ref",
    "element_address",
    "promoted_row",
    "read_field_why",
    "shared_write",
]

_NAME = re.compile(r"[A-Za-z_]\w*")


def _folded(text: str) -> str:
    return "".join(text.split())


def argument_ref(call: Call, arg: str, refs: tuple[Ref, ...]) -> Ref | None:
    """The reference the front end recorded for argument text `arg` of `call`."""
    want = _folded(arg)
    for ref in refs:
        inside = call.span.start_byte <= ref.span.start_byte < call.span.end_byte
        if inside and ref.subscripts and _folded(ref.render()) == want:
            return ref
    return None


def element_address(call: Call, arg: str, refs: tuple[Ref, ...]) -> Ref | None:
    """The element reference of `&x[i][k]`, an address into the row `x[i]`."""
    want = _folded(arg)
    if not want.startswith("&") or not want.endswith("]"):
        return None
    found = argument_ref(call, want[1:], refs)
    if found is None or not found.escapes or len(found.subscripts) < 2:
        return None
    return found


def address_row(arg: str) -> tuple[str, str] | None:
    """`&x[i][k]` as its row `x[i]` and its last subscript `k` (folded), or None."""
    want = _folded(arg)
    if not want.startswith("&") or not want.endswith("]"):
        return None
    depth = 0
    for pos in range(len(want) - 1, 0, -1):
        depth += {"]": 1, "[": -1}.get(want[pos], 0)
        if depth == 0:
            return want[1:pos], want[pos + 1 : -1]
    return None


def promoted_row(
    call: Call, arg: str, refs: tuple[Ref, ...], *, write: bool = True
) -> Ref | None:
    """The row row_arguments recorded for `&x[i][k]`: `x[i]`, or None.

    The row written, or with `write` False the row a library copy reads.
    """
    found = address_row(arg)
    if found is None:
        return None
    for ref in refs:
        inside = call.span.start_byte <= ref.span.start_byte < call.span.end_byte
        kind = ref.is_write if write else not ref.is_write and not ref.escapes
        if inside and kind and ref.subscripts and _folded(ref.render()) == found[0]:
            return ref
    return None


def shared_write(call: Call, arg: str, loop: Loop) -> str:
    """Why a callee's writes through `arg`, memory all iterations share, block."""
    why = (
        f"which modifies its argument `{arg or '?'}` (a dummy not `intent(in)`), "
        "shared by the iterations"
        if loop.fortran
        else f"which writes through `{arg or '?'}`, shared by the iterations"
    )
    var = loop.var or ""
    picks = [
        a
        for a in call.args
        if var and var in _NAME.findall(a) and not re.search(r"\[|->|\.|&", a)
    ]
    if not picks or arg.startswith("&"):
        return why
    # `sortAtomsInCell(atoms, boxes, ii)`: each call may pick its own part, but
    # a summary keeps no index ranges, so that is not shown.
    return (
        f"{why}: `{picks[0]}` may choose which part each call writes, but the "
        "summary keeps no index ranges, so the writes of different iterations "
        "are not proved disjoint"
    )


def read_field_why(
    arg: str, loop: Loop, source: SourceFile, sets: FieldSets | None
) -> str:
    """Why a callee reading through the field pointer `arg` may read the loop's writes.

    `interpolate(pot->phi, ...)` with the loop writing `pot->rhobar[i]`: the two
    are apart only if every store to `EamPotential.phi` is known; "" when `arg`
    is not such a field, or its stores are known (then what it reaches is not).
    """
    if sets is None:
        return ""
    text = top_offset(strip_casts(_folded(arg)))
    fn = source.function(loop.function)
    found = resolve_field(text, fn, source.globals, source.types) if text else None
    if found is None or found.levels != "*":
        return ""
    if sets.objects(found.key, found.field) is not None:
        return (
            f"`{text}` may reach an object the loop writes (through the fields "
            "it leads to)"
        )
    return f"what `{text}` points to is not known: " + sets.unknown_why(
        found.key, found.field
    )
