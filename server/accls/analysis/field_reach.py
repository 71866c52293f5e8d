"""What a callee may read through an argument that is a pointer read from a field.

`interpolate(pot->phi, r, &f, &df)` hands the callee the pointer stored in
`EamPotential.phi`: it may read the objects that field points to and,
through their own pointer fields, everything reachable from them. With the
whole program's field sets, that is a set of objects; when none of them is
an object the loop writes (`pot->rhobar[i]`, whose own set is known), the call
reads nothing the loop changes.
"""

from __future__ import annotations

from accls.analysis.access_paths import target_of
from accls.analysis.field_alias import target_objects
from accls.analysis.field_paths import resolve_field, strip_casts, top_offset
from accls.analysis.field_sets import FieldSets
from accls.frontend import Function, Loop, Ref, SourceFile, TypeTable

__all__ = ["reads_apart"]

_LIMIT = 64  # struct types followed before giving up


def _reach(key: str, types: TypeTable, sets: FieldSets) -> frozenset[str] | None:
    """Every object reachable from an object of struct `key`; None if unknown."""
    out: set[str] = set()
    todo, seen = [key], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if len(seen) > _LIMIT:
            return None
        fields = types.fields_of(current)
        if fields is None:
            return None
        for name, member in fields.items():
            more = types.levels_of(member.type)
            if more is None:
                return None
            levels = member.shape + more
            inner = types.struct_key(member.type)
            if "*" not in levels:
                if inner is not None:
                    todo.append(inner)  # a struct held by value
                continue
            if not levels.startswith("*"):
                return None  # pointers stored in an array inside the struct
            objects = sets.objects(current, name)
            if objects is None:
                return None
            out |= objects
            if len(levels) > 1 or member.type in ("void", "char"):
                if objects:
                    return None  # rows or bytes whose pointers we cannot follow
                continue
            if inner is not None:
                todo.append(inner)
    return frozenset(out)


def reads_apart(
    arg: str, writes: list[Ref], loop: Loop, source: SourceFile, sets: FieldSets
) -> str | None:
    """Why a callee reading through `arg` reads none of `writes`; None if unproved."""
    fn: Function | None = source.function(loop.function)
    text = top_offset(strip_casts("".join(arg.split())))  # `SD.grid + i * n`
    found = resolve_field(text, fn, source.globals, source.types) if text else None
    if found is None or found.levels != "*":
        return None
    start = sets.objects(found.key, found.field)
    if start is None:
        return None
    reach: frozenset[str] = start
    inner = source.types.struct_key(found.member.type)
    if inner is not None:
        deeper = _reach(inner, source.types, sets)
        if deeper is None:
            return None
        reach |= deeper
    elif start and found.member.type in ("void", "char"):
        return None
    for ref in writes:
        target = target_of(ref, fn, source.globals, source.types)
        objects = target_objects(target, fn, source, sets)
        if objects is None or objects[0] & reach:
            return None
    names = ", ".join(sorted({f"`{r.name}`" for r in writes}))
    struct = found.key.removeprefix("struct ")
    return (
        f"`{text}` reaches none of the objects the loop writes through {names} "
        f"(every store to `{struct}.{found.field}` and to the fields it leads to "
        "is known)"
    )
