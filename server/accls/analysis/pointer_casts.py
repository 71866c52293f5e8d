"""Pointers set from a pointer cast: their element type says nothing of their target."""

from __future__ import annotations

import re

from accls.frontend import Function, SourceFile, Var

__all__ = ["cast_assigned"]

# `(long *)`, `(const struct cell **)`, `(double (*)[8])`: a cast to a pointer type.
_CAST = re.compile(
    r"\(\s*(?:(?:const|volatile|struct|union|unsigned|signed|long|short)\s+)*"
    r"[A-Za-z_]\w*\s*(?:\*+|\(\s*\*\s*\)\s*\[[^\]]*\])\s*\)"
)

_CALL = re.compile(r"\s*[A-Za-z_]\w*\s*\(")


def cast_assigned(var: Var | None, fn: Function | None, source: SourceFile) -> bool:
    """Whether some value stored into the pointer `var` holds a pointer cast.

    `long *l = (long *)d` reaches the doubles of `d`: a test by element type
    (a `long` never overlaps a `double`) would miss it. A local or parameter is
    looked for in its function, a global in the whole file.
    """
    if var is None or not var.pointers:
        return False
    text = source.code
    if var.scope != "global" and fn is not None:
        text = text[fn.span.start_byte : fn.span.end_byte]
    store = re.compile(
        rf"\b{re.escape(var.name)}\s*(?:\[[^\]]*\]\s*)*=(?!=)([^;{{}}]*)"
    )
    return any(_casts_pointer(found.group(1)) for found in store.finditer(text))


def _casts_pointer(value: str) -> bool:
    """A cast of a pointer or array, not of a call's result (`(double *)malloc(..)`)."""
    return any(not _CALL.match(value, c.end()) for c in _CAST.finditer(value))
