"""Elements reached through a structure's member in a region: `s.v[k]`, `p->x[i]`.

A pointer member's pointee is never copied: every thread's copy of a
`firstprivate` structure (or of a pointer to one) points to the same elements,
as does the one shared structure. An array member lies in the structure: a
thread's own copy of the structure holds its own array. A path whose pointer, or
whose whole structure, the region assigns may point somewhere else in each
thread, and is not followed.
"""

from __future__ import annotations

import re

from accls.analysis.mhp_steady_members import steady_arrows
from accls.analysis.pragma_scope import clause_names
from accls.frontend import Function, Region, SourceFile, Var

__all__ = ["member_paths", "shared_through_member", "steady_paths"]

_PATH = re.compile(r"([A-Za-z_]\w*)(\.|->)([A-Za-z_]\w*)")
_COPYING = frozenset({"firstprivate"})


def _declaration(name: str, fn: Function, source: SourceFile) -> Var | None:
    if fn.declarations(name) > 1:
        return None
    found = fn.lookup(name)
    if found is not None:
        return found
    matches = [g for g in source.globals if g.name == name]
    return matches[0] if len(matches) == 1 else None


def member_paths(
    fn: Function, source: SourceFile, start: int, end: int
) -> tuple[tuple[str, str, str], ...]:
    """Each `s.f`/`p->f` subscripted in `start:end`: its base and member kind.

    The kind is "pointer" or "array".
    """
    inside = [r for r in fn.refs if start <= r.span.start_byte < end]
    assigned = {r.name for r in inside if r.is_write and not r.subscripts}
    out: dict[str, tuple[str, str]] = {}
    for ref in inside:
        match = _PATH.fullmatch(ref.name)
        if not ref.member or not ref.subscripts or match is None:
            continue
        base, arrow, field = match.groups()
        if ref.name in assigned or base in assigned or ref.name in out:
            continue
        var = _declaration(base, fn, source)
        if var is None or var.dims or var.pointers != (arrow == "->"):
            continue
        if source.types.is_union(var.type):
            continue
        member = (source.types.fields_of(var.type) or {}).get(field)
        if member is not None and (member.dims or member.pointers):
            out[ref.name] = (base, "array" if member.dims else "pointer")
    return tuple((path, *found) for path, found in sorted(out.items()))


def shared_through_member(
    path: str, kind: str, private: bool, constructs: list[Region]
) -> bool:
    """Whether `path[...]` is one object for every thread.

    `private`: each thread has its own copy of the path's base name.
    """
    if not private:
        return True
    match = _PATH.fullmatch(path)
    if match is None:
        return False
    base, arrow, _ = match.groups()
    copied = base in clause_names(tuple(r.directive for r in constructs), _COPYING)
    # A copied structure's array member is the copy's; its pointer member is not.
    return copied and (kind == "pointer" or arrow == "->")


def steady_paths(
    invariant: frozenset[str],
    fn: Function,
    source: SourceFile,
    span: tuple[int, int],
    changing: set[str],
) -> frozenset[str]:
    """`invariant` less the member paths `s.n`, `p->n` whose structure may change.

    A structure the region (bytes `span` of `fn`) assigns, declares, makes
    `private`, or whose address it takes (a callee may store through it), holds
    no one value; nor does a pointer's member that a call may set.
    """
    start, end = span
    escaping = {
        r.name for r in fn.refs if start <= r.span.start_byte < end and r.escapes
    }
    moving = changing | escaping
    return steady_arrows(
        frozenset(
            name
            for name in invariant
            if "." not in name or name.split(".", 1)[0] not in moving
        ),
        fn,
        source,
        span,
        moving,
    )
