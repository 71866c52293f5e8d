"""Functions of the file that touch nothing outside their own frame.

`static unsigned mix(unsigned h) { h ^= h >> 16; h *= 0x45d9f3bu; return h; }`
reads and writes only its parameters and locals: a call of it, from a callee
whose accesses are written in at its call (callee_inline), adds no access. A
pointer or array parameter, a `static` or pointer local, a global, an OpenMP
construct, or a call of anything but a pure library function or another such
function (never recursion) disqualifies it.
"""

from __future__ import annotations

from accls.frontend import SourceFile

__all__ = ["own_only"]

_DEPTH = 4


def own_only(
    name: str, source: SourceFile, pure: frozenset[str], seen: frozenset[str]
) -> bool:
    """Whether the file's one `name` touches only its own parameters and locals."""
    found = [f for f in source.functions if f.name == name]
    if len(found) != 1 or name in seen or len(seen) > _DEPTH:
        return False
    fn = found[0]
    if any(p.pointers or p.dims or p.levels for p in fn.params):
        return False
    if any(v.static or v.pointers for v in fn.locals):
        return False
    start, end = fn.span.start_byte, fn.span.end_byte
    if any(start <= c.span.start_byte < end for c in source.constructs):
        return False
    for ref in fn.refs:
        var = fn.lookup(ref.name)
        if var is None or ref.escapes or ref.deref or ref.member:
            return False
    inner = seen | {name}
    return all(call in pure or own_only(call, source, pure, inner) for call in fn.calls)
