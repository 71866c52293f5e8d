"""Which references a local of a loop body names, and which name an outer variable.

A declaration inside a loop (`{ double t = a[i]; ... }`) makes `t` a new object
from the declaration to the end of its block; a `t` elsewhere in the loop (before
it, or after the block) is the variable of the same name outside the loop. The
walker records each local's `scope_end`; -1 (unknown) means to the loop's end.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from accls.frontend.model import AccessKind, Ref, Var

__all__ = ["in_scope", "local_members", "outer_refs", "whole_variable_view"]

_ROOT = re.compile(r"([A-Za-z_]\w*)\s*(\.|->)")


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


def whole_variable_view(ref: Ref) -> Ref | None:
    """A member reference seen as an access of its whole variable, if it is one.

    `p.x` reads part of the struct `p` and `p.x = 1` changes part of it (a read
    and a write of `p`: the rest is kept); `p->x` reads the pointer `p`. Fortran's
    `s%f` is `s.f` too. None for a reference that is not a member of a variable.
    """
    if not ref.member or ref.subscripts or ref.deref:
        return None
    found = _ROOT.match(ref.name)
    if found is None:
        return None
    kind = AccessKind.READ
    if found.group(2) == "." and ref.is_write:
        kind = AccessKind.UPDATE
    return replace(ref, name=found.group(1), kind=kind, reduction=None, member=False)


def local_members(refs: Iterable[Ref], locals_: Sequence[Var]) -> set[str]:
    """Member paths (`w.d`) of struct or union objects the loop body declares.

    A path counts only when every reference to it is in its root's scope (a
    `static` local is one object for all iterations, so it never counts).
    """
    decls: dict[str, list[Var]] = {}
    for var in locals_:
        if not var.static and var.shape == "":
            decls.setdefault(var.name, []).append(var)
    inside: dict[str, bool] = {}
    for ref in refs:
        whole = whole_variable_view(ref)
        if whole is None or "->" in ref.name or whole.name not in decls:
            continue
        start = ref.span.start_byte
        held = any(in_scope(start, v) for v in decls[whole.name])
        inside[ref.name] = inside.get(ref.name, True) and held
    return {name for name, held in inside.items() if held}
