"""Which references a local of a loop body names, and which name an outer variable.

A declaration inside a loop (`{ double t = a[i]; ... }`) makes `t` a new object
from the declaration to the end of its block; a `t` elsewhere in the loop (before
it, or after the block) is the variable of the same name outside the loop. The
walker records each local's `scope_end`; -1 (unknown) means to the loop's end.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from accls.frontend.model import Ref, Var

__all__ = ["in_scope", "outer_refs"]


def in_scope(start_byte: int, var: Var) -> bool:
    """True when a reference starting at `start_byte` is in `var`'s scope."""
    if var.span is None:
        return True
    if start_byte < var.span.start_byte:
        return False
    return var.scope_end < 0 or start_byte < var.scope_end


def outer_refs(refs: Iterable[Ref], locals_: Sequence[Var]) -> dict[str, list[Ref]]:
    """For each name the loop declares, its references that no declaration reaches.

    An empty list means every reference is to one of the loop's own locals.
    """
    by_name: dict[str, list[Var]] = {}
    for var in locals_:
        by_name.setdefault(var.name, []).append(var)
    out: dict[str, list[Ref]] = {name: [] for name in by_name}
    for ref in refs:
        decls = by_name.get(ref.name)
        if decls is not None and not any(
            in_scope(ref.span.start_byte, v) for v in decls
        ):
            out[ref.name].append(ref)
    return out
