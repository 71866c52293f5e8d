"""Two accesses apart because the pointer fields they go through never meet.

`s->atoms->p[i]` and `s->atoms->f[i]` reach memory through pointers read from
the fields `Atoms.p` and `Atoms.f`. When every store to either field in the
program is known (field_points_to), and no object is in both sets, the two
never overlap; a local or global array is apart from a field that no store
ever pointed into it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from accls.analysis.access_paths import Target
from accls.analysis.field_facts import object_of_var
from accls.analysis.field_paths import resolve_field
from accls.analysis.field_rows import ROWS
from accls.analysis.field_sets import FieldSets
from accls.frontend import Function, SourceFile

__all__ = [
    "fields_apart",
    "fields_overlap_why",
    "own_label",
    "target_objects",
    "told_overlap",
]


def own_label(source: SourceFile) -> str:
    """How the places of the analysed file are named (its file name)."""
    return source.path.replace("\\", "/").rsplit("/", 1)[-1]


def target_objects(
    target: Target, fn: Function | None, source: SourceFile, sets: FieldSets
) -> tuple[frozenset[str], str] | None:
    """The objects a target may lie in, and how the message says why."""
    root = target.root
    if root is None or target.union:
        return None
    holder = _holder(target, fn, source)
    if holder is not None:
        target = holder  # storage inside the block a pointer field points to
    if target.kind == "loaded" and target.selectors in (0, 1):
        found = resolve_field(target.path, fn, source.globals, source.types)
        wanted = "**" if target.selectors else "*"
        if found is None or not found.levels.startswith(wanted):
            return None
        slot = found.field + (ROWS if target.selectors else "")
        objects = sets.objects(found.key, slot)
        if objects is None:
            return None
        struct = found.key.removeprefix("struct ")
        stores = ", ".join(sets.places(found.key, slot)) or "none"
        what = (
            f"a row of `{struct}.{found.field}`"
            if target.selectors
            else (f"`{struct}.{found.field}`")
        )
        return objects, f"every store to {what} is {stores}"
    if target.kind in ("pointee", "object") and target.path != root.name:
        # A C++ container member's elements lie in the buffer it owns: no store
        # to a pointer field can point there unless the field sets say so.
        found = resolve_field(target.path, fn, source.globals, source.types)
        if found is not None and found.member.container:
            struct = found.key.removeprefix("struct ")
            return (
                frozenset({f"container {found.key}.{found.field}"}),
                f"`{struct}.{found.field}` is a container that owns its elements",
            )
    if target.kind == "object" and target.path == root.name:
        if root.scope not in ("local", "global"):
            return None
        name = object_of_var(root, fn, own_label(source))
        return frozenset({name}), f"`{root.name}` is an array no field was set to"
    return None


# The members after a path's last `->`: `->x0`, `->box.lo` (storage of the pointee).
_INLINE_TAIL = re.compile(r"->\s*[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")


def _holder(target: Target, fn: Function | None, source: SourceFile) -> Target | None:
    """`p->tab->x0` (a member stored inside `*p->tab`) as the pointer `p->tab`.

    The member lies in the block the field `tab` points to, whatever its offset,
    so that block is the object the access may touch. Only a member that is no
    pointer qualifies (`p->tab->v` itself, or an element it selects, may be a
    pointer's value or its target), and only an access that stays in it.
    """
    if target.kind != "loaded" or target.selectors or target.root is None:
        return None
    cut = target.path.rfind("->")
    if cut <= 0 or not _INLINE_TAIL.fullmatch(target.path[cut:]):
        return None
    found = resolve_field(target.path, fn, source.globals, source.types)
    if found is None or found.levels.startswith("*") or "?" in found.levels:
        return None
    pointer = target.path[:cut].rstrip()
    held = resolve_field(pointer, fn, source.globals, source.types)
    if held is None or held.levels != "*":
        return None
    return Target("loaded", target.root, pointer, 0, union=target.union)


def fields_apart(
    a: Target, b: Target, fn: Function | None, source: SourceFile, sets: FieldSets
) -> str | None:
    """Why `a` and `b` never overlap, from the field sets; None when unproved."""
    if a.kind != "loaded" and b.kind != "loaded":
        return None
    left = target_objects(a, fn, source, sets)
    right = target_objects(b, fn, source, sets)
    if left is None or right is None or left[0] & right[0]:
        return None
    return (
        f"`{a.path}` and `{b.path}` point to distinct objects ({left[1]}; {right[1]})"
    )


def _object_text(name: str) -> str:
    kind, _, rest = name.partition(" ")
    if kind == "alloc":
        return f"the block allocated at {rest}"
    if kind == "global":
        return f"the array `{rest}`"
    if kind == "container":
        return f"the elements of `{rest.removeprefix('struct ')}`"
    owner, _, var = rest.rpartition(":")
    return f"the block of `{var}` in `{owner.rpartition(':')[2]}()`"


def fields_overlap_why(
    a: Target, b: Target, fn: Function | None, source: SourceFile, sets: FieldSets
) -> str | None:
    """What the field sets say about a pair they could not prove apart."""
    for one in (a, b):
        if one.kind != "loaded" or one.selectors not in (0, 1) or one.union:
            continue
        found = resolve_field(one.path, fn, source.globals, source.types)
        wanted = "**" if one.selectors else "*"
        if found is None or not found.levels.startswith(wanted):
            continue
        slot = found.field + (ROWS if one.selectors else "")
        if sets.objects(found.key, slot) is None:
            why = sets.unknown_why(found.key, slot)
            shown = f"the rows of `{one.path}`" if one.selectors else f"`{one.path}`"
            return f"{shown} may point anywhere: {why}"
    left = target_objects(a, fn, source, sets)
    right = target_objects(b, fn, source, sets)
    if left is None or right is None:
        return None
    shared = sorted(left[0] & right[0])
    if not shared:
        return None
    return f"both may point into {_object_text(shared[0])} ({left[1]}; {right[1]})"


def told_overlap(
    wtargets: Sequence[Target],
    otargets: Sequence[Target],
    fn: Function | None,
    source: SourceFile,
    fields: FieldSets,
) -> str | None:
    """The field sets' account of why a pair may overlap, if they have one."""
    for a in wtargets:
        for b in otargets:
            why = fields_overlap_why(a, b, fn, source, fields)
            if why is not None:
                return why
    return None
