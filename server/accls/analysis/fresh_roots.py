"""A chain of carved pointers rooted in this call's allocation, and who cannot reach it.

`struct v s = {pool, pool + n};` with `pool = malloc(..)` puts `s.b` inside a
block the function allocated: an array object (a global or local array) is
other storage, and a parameter the function never assigns held its value
before the block existed. Field chains need this proof here: their targets
are loaded pointers, which `alias_pairs` cannot place.
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile

__all__ = ["fresh_root", "unreached"]


def fresh_root(name: str, fn: Function) -> str | None:
    """`name` when it is a fresh local pointer of this call (not static), else None."""
    var = fn.lookup(name)
    if var is None or var.scope != "local" or not var.fresh:
        return None
    if var.static or var.address_taken or var.dims:
        return None
    return name


def unreached(name: str, fn: Function, source: SourceFile) -> bool:
    """Whether `name` is storage or a pointer no fresh block of this call reaches."""
    if "." in name or "->" in name or "[" in name:
        return False
    var = fn.lookup(name)
    if var is None and not fn.declarations(name):
        var = next((g for g in source.globals if g.name == name), None)
    if var is None or var.address_taken:
        return False
    if var.dims and not var.pointers and var.scope in ("local", "global"):
        return True  # an array object: storage of its own
    if var.scope != "param" or var.dims or var.pointers != 1:
        return False
    return not any(
        r.name == name and r.is_write and not r.subscripts and not r.deref
        for r in fn.refs
    )  # never re-pointed: it holds the caller's value, older than the block
