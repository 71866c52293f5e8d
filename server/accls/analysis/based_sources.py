"""The object two pointers of a loop are both set from, which no promise sets apart.

`p = a + 1` and `a`, or two globals the program sets from one object (`gq =
g`), or two fields set from one block: they point into one object, and neither
`restrict` nor assume-no-alias says anything about pointers based on one
another. Two locals that only ever hold two distinct parameters, or two blocks
allocated apart, swapped in turn (`t = in; in = out; out = t;`), are no such
pair: they hold each other's values, but never at the same time, so they are
as apart as the two objects are.
"""

from __future__ import annotations

from accls.analysis.access_paths import Target
from accls.analysis.alias_pairs import common_source
from accls.analysis.global_sources import GlobalLink, shared_source
from accls.analysis.member_sources import member_source
from accls.analysis.pointer_rotations import ALLOCATION, local_in_scope, swapped
from accls.frontend import Function, Loop, SourceFile

__all__ = ["based_source"]

_HELD = ("pointee", "object")


def based_source(
    ones: list[Target],
    twos: list[Target],
    fn: Function | None,
    source: SourceFile,
    links: tuple[GlobalLink, ...],
    loop: Loop,
) -> str:
    """The object both pointers are set from, else ""."""
    pairs = [
        (a, b) for a in ones for b in twos if not _swapped_pair(a, b, fn, source, loop)
    ]
    for a, b in pairs:
        found = common_source(a, b, fn)
        if found:
            return found
    for a, b in pairs:
        if a.kind in _HELD and b.kind in _HELD and a.root and b.root:
            found = shared_source(a.root, b.root, fn, source, links)
            if found:
                return found
    return member_source(ones, twos, source)


def _swapped_pair(
    a: Target, b: Target, fn: Function | None, source: SourceFile, loop: Loop
) -> bool:
    """Two locals that hold two distinct parameters or blocks, swapped in turn."""
    if fn is None or a.root is None or b.root is None:
        return False
    if a.kind != "pointee" or b.kind != "pointee":
        return False
    at = loop.span.start_byte
    if local_in_scope(a.root.name, fn, at) is not a.root:
        return False
    if local_in_scope(b.root.name, fn, at) is not b.root:
        return False
    held = swapped(a.root, b.root, fn, source, loop)
    if held is None:
        return False
    return held[0] != held[1] or held == (ALLOCATION, ALLOCATION)
