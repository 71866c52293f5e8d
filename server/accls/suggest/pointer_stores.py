"""Offloaded loops that store pointers in memory: refused, tables stay on the host.

On the device, `rows[r] = pool + r * STRIDE` or `tab[r] = &base[8 * r]` computes
device addresses. Copied back, the host's table holds pointers the host cannot
follow; a host pointer copied in is one the device cannot follow. Experts build
pointer tables on the host, so an offloaded loop that stores a pointer anywhere
but in storage of its own iteration (a local array or struct declared in the
loop) is refused with that reason.
"""

from __future__ import annotations

import re

from accls.analysis.access_paths import declaration
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["pointer_stores"]

_STEP = re.compile(r"(->|\.)")
_HEAD = re.compile(r"\s*([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)*)$")


def _stored_levels(
    ref: Ref, fn: Function | None, source: SourceFile
) -> tuple[str, bool] | None:
    """The levels of the value a store writes, and whether its path has a pointer.

    "*..." is a pointer, "" a scalar; None when unknown.
    """
    root = declaration(ref.name, fn, source.globals)
    if root is None:
        return None
    types = source.types
    more = types.levels_of(root.type)
    if more is None:
        return None
    levels, type_, through = root.shape + more, root.type, False
    parts = _STEP.split(ref.name)
    if ref.field:
        parts = [f"{parts[0]}{'[]' * len(ref.subscripts)}", *parts[1:], ".", ref.field]
    for index, part in enumerate(parts):
        if index % 2 == 1:
            if part == "->":
                if not levels.startswith("*"):
                    return None
                levels, through = levels[1:], True
            if levels:
                return None  # a member of something not a struct
            fields = types.fields_of(type_)
            continue
        head = _HEAD.match(part)
        if head is None:
            return None
        if index > 0:
            member = fields.get(head.group(1)) if fields is not None else None
            if member is None:
                return None
            more = types.levels_of(member.type)
            if more is None:
                return None
            levels, type_ = member.shape + more, member.type
        for _ in range(head.group(2).count("[")):
            through = through or levels.startswith("*")
            levels = levels[1:]
    used = 0 if ref.field else len(ref.subscripts) + (1 if ref.deref else 0)
    through = through or "*" in levels[:used]
    if len(levels) < used:
        return None
    return levels[used:], through


def pointer_stores(loop: Loop, source: SourceFile) -> tuple[str, ...]:
    """Why `loop` cannot be offloaded: the pointers it stores in memory."""
    fn = source.function(loop.function)
    own = {v.name for inner in loop.walk() for v in inner.locals}
    for ref in loop.refs:
        if not ref.is_write or not (
            ref.subscripts or ref.deref or ref.field or _STEP.search(ref.name)
        ):
            continue  # a scalar variable: private, or refused as shared elsewhere
        found = _stored_levels(ref, fn, source)
        if found is None or not found[0].startswith("*"):
            continue
        base = _STEP.split(ref.name, maxsplit=1)[0].split("[", 1)[0].strip()
        if base in own and not found[1]:
            continue  # a pointer table of the iteration's own
        where = ref.render() + (f".{ref.field}" if ref.field else "")
        return (
            f"stores a pointer in `{where}` at line {ref.span.line}: "
            "offloaded, it would be a device address the host cannot follow when "
            "the table comes back (or a host address the device cannot); build "
            "pointer tables on the host",
        )
    return ()
