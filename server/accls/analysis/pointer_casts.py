"""Pointers set from a pointer cast: their element type says nothing of their target."""

from __future__ import annotations

import re

from accls.analysis.struct_views import struct_view
from accls.frontend import Function, SourceFile, Var

__all__ = ["cast_assigned"]

# `(long *)`, `(const struct cell **)`, `(double (*)[8])`: a cast to a pointer type.
_CAST = re.compile(
    r"\(\s*(?:(?:const|volatile|struct|union|unsigned|signed|long|short)\s+)*"
    r"[A-Za-z_]\w*\s*(?:\*+|\(\s*\*\s*\)\s*\[[^\]]*\])\s*\)"
)
_MEMBER = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:\.|->)\s*[A-Za-z_]\w*\s*$")
_CALL = re.compile(r"\s*[A-Za-z_]\w*\s*\(")
# A name, maybe parenthesised, maybe plus an offset: `vp`, `(vp) + 1`.
_NAME = re.compile(r"\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*(?:[-+][^,;]*)?$")


def cast_assigned(var: Var | None, fn: Function | None, source: SourceFile) -> bool:
    """Whether some value stored into the pointer `var` holds a pointer cast.

    `long *l = (long *)d` reaches the doubles of `d`: a test by element type
    (a `long` never overlaps a `double`) would miss it. So does a copy of a
    `void *` or of a union's member, and a parameter some call passes a cast
    for. A local or parameter is looked for in its function, a global in the
    whole file.
    """
    if var is None or not var.pointers:
        return False
    text = source.code
    if var.scope != "global" and fn is not None:
        text = text[fn.span.start_byte : fn.span.end_byte]
    store = re.compile(
        rf"\b{re.escape(var.name)}\s*(?:\[[^\]]*\]\s*)*=(?!=)([^;{{}}]*)"
    )
    for found in store.finditer(text):
        value = found.group(1)
        if _casts_pointer(value, fn, source) or _untyped(value, fn, source):
            return True
    return var.scope == "param" and fn is not None and _cast_argument(var, fn, source)


def _casts_pointer(value: str, fn: Function | None, source: SourceFile) -> bool:
    """A cast of a pointer or array, not of a call's result (`(double *)malloc(..)`).

    Nor a view of a struct as a related one (`struct_views`): its fields keep
    their types.
    """
    return any(
        not _CALL.match(value, c.end())
        and not struct_view(c.group(0), value[c.end() :], fn, source)
        for c in _CAST.finditer(value)
    )


def _untyped(value: str, fn: Function | None, source: SourceFile) -> bool:
    """A copy of a `void *` (`double *p = vp`) or of a union's member (`u.l`)."""
    member = _MEMBER.match(value)
    found = member or _NAME.match(value)
    if found is None:
        return False
    name = found.group(1)
    held = fn.lookup(name) if fn is not None else None
    if held is None:
        held = next((g for g in source.globals if g.name == name), None)
    if held is None:
        return False
    if member is not None:
        return source.types.is_union(held.type)
    return held.type == "void" and held.pointers == 1


def _cast_argument(var: Var, fn: Function, source: SourceFile) -> bool:
    """Whether a call of `fn` in the file passes a pointer cast for parameter `var`."""
    names = [p.name for p in fn.params]
    if var.name not in names:
        return False
    at = names.index(var.name)
    return any(
        at < len(call.args) and _casts_pointer(call.args[at], caller, source)
        for caller in source.functions
        for call in caller.call_sites
        if call.name == fn.name
    )
