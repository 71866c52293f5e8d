"""A pointer's whole allocation as its data clause, when which elements is unknown.

`int *h = malloc(10 * sizeof(int));` and a loop updating `h[bin[i]]`: the loop
cannot say which elements it touches, but every element it may touch lies in
`h[0:10]`, or the serial program already reads past its block. That holds only
while `h` still points to that block and `10` still means what it did: `h` is
set once, at its declaration, and every name in the count is a local or
parameter set only where it is declared, whose address is never taken.
"""

from __future__ import annotations

import re

from accls.frontend import Function, Var

__all__ = ["allocated_section"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_COUNT = re.compile(r"[\w\s+*()-]+")


def _set_once(name: str, fn: Function) -> Var | None:
    """The local or parameter `name`, if it is written only where declared."""
    var = fn.lookup(name)
    if var is None or fn.declarations(name) != 1 or var.address_taken:
        return None
    for ref in fn.refs:
        if ref.name != name or not ref.is_write or ref.subscripts or ref.deref:
            continue
        if var.span is None or ref.span != var.span:
            return None
    return var


def allocated_section(name: str, decl: Var | None, fn: Function | None) -> str | None:
    """`name[0:E]` for a pointer from `malloc(E * sizeof(T))`, set only there."""
    if decl is None or fn is None or decl.scope != "local" or not decl.alloc_count:
        return None
    if not decl.fresh or decl.device or _set_once(name, fn) is not decl:
        return None
    count = decl.alloc_count
    if not _COUNT.fullmatch(count):
        return None
    for word in _NAME.findall(count):
        var = _set_once(word, fn)
        if var is None or var.pointers or var.dims:
            return None
    return f"{name}[0:{count}]"
