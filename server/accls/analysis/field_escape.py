"""Whether the address of a local array ever leaves its name.

`real3 dr;` declared in a function is storage no pointer can reach unless the
program makes one: `p = dr`, `s->v = dr`, `f(dr)`, `return dr` or `&dr[k]`
hand its address on. When every use of `dr` in the function subscripts it
(`dr[k] = ...`, `... dr[k] ...`), no pointer read from memory, no parameter and
no global can point into it, whatever they are.
"""

from __future__ import annotations

import re

from accls.frontend import Function, TypeTable, Var

__all__ = ["sealed_local"]


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.>]){re.escape(name)}(?!\w)")


def _groups(text: str) -> int:
    """How many `[..]` groups open `text`."""
    count, depth = 0, 0
    for char in text:
        if depth == 0 and char not in "[ ":
            break
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            count += depth == 0
    return count


def sealed_local(var: Var, fn: Function, types: TypeTable) -> bool:
    """True for a non-static local array that is only ever used subscripted."""
    if var.scope != "local" or var.static or var.address_taken or var.leaves:
        return False
    more = types.levels_of(var.type)
    levels = var.shape + (more or "")
    if more is None or not levels or set(levels) != {"["}:
        return False  # a pointer somewhere, or unknown levels: it holds addresses
    if fn.lookup(var.name) is not var:
        return False  # shadowed: another declaration of the name is in scope
    declared = [v for v in (*fn.params, *fn.locals) if v.name == var.name]
    for other in declared:
        # Two blocks may declare the name (`real3 dr;` in two loops): a use is
        # then either, so every one must be such an array.
        if other.scope != "local" or other.static or other.address_taken:
            return False
        theirs = types.levels_of(other.type)
        if other.leaves or theirs is None or other.shape + theirs != levels:
            return False
    uses = [r for r in fn.refs if r.name == var.name]
    if not uses:
        return False
    for ref in uses:
        if ref.escapes or ref.deref or ref.member:
            return False
        if len(ref.subscripts) < len(levels):
            return False  # `dr`, or a row `m[i]` of `double m[3][3]`: a pointer value
    word = _word(var.name)
    for call in fn.call_sites:
        for arg in call.args:
            for hit in word.finditer(arg):
                taken = arg[: hit.start()].rstrip().endswith("&")
                if taken or _groups(arg[hit.end() :]) < len(levels):
                    return False
    return True
