"""Whether a callee reading an object reads only members the loop does not write.

`Collect(domain, nodes, x)` with `void Collect(Domain &d, ...)` reading
`d.m_x[..]` (an accessor `d.x(n)` included) reads the vector member `m_x` of
the caller's `domain`; a loop writing only `domain.m_v[k]` and `domain.m_delv[k]`
changes other members. Two distinct members of one object never overlap, and a
`std::vector` member's elements lie in its own buffer, which no other member
reaches unless it is a pointer to the same element type. With the whole
program's field sets, a pointer member that only ever holds fresh blocks
(`m_dxx = Allocate<Real_t>(n)` in an allocation method) points into no other
member's storage, and two pointer members whose sets share no block are apart.
"""

from __future__ import annotations

import re

from accls.analysis.alias_pairs import storage_apart
from accls.analysis.field_sets import FieldSets
from accls.analysis.summaries import base_name
from accls.frontend import Call, Function, Loop, SourceFile, Var

__all__ = ["member_reads_apart"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_FIRST = re.compile(r"\s*(?:->|\.)\s*([A-Za-z_]\w*)")


def _first_member(name: str, root: str) -> str | None:
    """The member a path `root->m...` or `root.m...` starts with; None otherwise."""
    if base_name(name) != root:
        return None
    match = _FIRST.match(name, len(root))
    return match.group(1) if match is not None else None


def _owned(member: Var) -> bool:
    """A member whose storage lies in the object: a container, an array, a scalar."""
    return member.container or member.pointers == 0


def _blocks(
    key: str, name: str, member: Var, sets: FieldSets | None
) -> frozenset[str] | None:
    """The fresh blocks a pointer member may point to; None unless only such blocks."""
    if sets is None or member.container or member.pointers != 1 or member.dims:
        return None
    objects = sets.objects(key, name)
    if not objects or any(not o.startswith("alloc ") for o in objects):
        return None
    return objects


def _apart(
    key: str, read: tuple[str, Var], written: tuple[str, Var],
    source: SourceFile, sets: FieldSets | None,
) -> bool:  # fmt: skip
    """Whether accesses through two different members never touch one object."""
    if _owned(read[1]) and _owned(written[1]):
        return True
    # A pointer member holding only blocks it was given by an allocator points
    # into no member's own storage, and into no block another member never held.
    mine = _blocks(key, *read, sets)
    theirs = _blocks(key, *written, sets)
    if mine is not None and theirs is not None and not mine & theirs:
        return True
    if (mine is not None and _owned(written[1])) or (
        theirs is not None and _owned(read[1])
    ):
        return True
    # A pointer member may point into the other's storage, unless their element
    # types never share storage (C's and C++'s effective-type rule).
    if read[1].pointers > 1 or written[1].pointers > 1:
        return False
    return storage_apart(read[1].type, written[1].type, source.types)


def member_reads_apart(
    call: Call,
    index: int,
    loop: Loop,
    source: SourceFile,
    sets: FieldSets | None = None,
) -> str | None:
    """Why the callee, reading the object passed at `index`, misses the loop's writes.

    The argument must be a plain name of a class object (or a reference to
    one); the callee, defined in this file, reaches it only through member
    paths and hands it to no other call. `sets` are the program's field sets,
    when every file was read. None when that cannot be shown.
    """
    arg = call.args[index] if index < len(call.args) else ""
    callee: Function | None = source.function(call.name)
    caller = source.function(loop.function)
    if not _IDENT.fullmatch(arg) or callee is None or caller is None:
        return None
    if index >= len(callee.params):
        return None
    param = callee.params[index].name
    holder = caller.lookup(arg)
    fields = source.types.fields_of(holder.type) if holder is not None else None
    if fields is None or holder is None or holder.dims or holder.pointers > 1:
        return None
    if source.types.is_union(holder.type):
        return None  # the members of a union overlap
    for site in callee.call_sites:
        if "::" in site.name or any(param in _IDENT.findall(a) for a in site.args):
            return None  # the object goes on to another call, or a method runs
    read: set[str] = set()
    for ref in callee.refs:
        if base_name(ref.name) != param:
            continue
        member = _first_member(ref.name, param)
        if member is None or member not in fields or ref.is_write:
            return None
        read.add(member)
    written: set[str] = set()
    for ref in loop.refs:
        if not ref.is_write or base_name(ref.name) != arg:
            continue
        member = _first_member(ref.name, arg)
        if member is None or member not in fields:
            return None
        written.add(member)
    if not read or not written or read & written:
        return None
    key = source.types.struct_key(holder.type) or holder.type
    for one in read:
        for other in written:
            pair = (one, fields[one]), (other, fields[other])
            if not _apart(key, *pair, source, sets):
                return None
    shown = ", ".join(f"`{m}`" for m in sorted(read))
    return (
        f"`{call.name}()` reads only the member{'s' if len(read) > 1 else ''} "
        f"{shown} of `{arg}`, which the loop does not write"
    )
