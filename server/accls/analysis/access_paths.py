"""Which memory object an array reference reaches, read from its access path.

`a[i]` reaches the object `a` names or the one the pointer `a` points to; but
`t[1][i]` with `double *t[2]`, `s.v[i]` with a pointer field `v`, or `g[k][i]`
with `double **g` reach memory through a pointer that was itself read from
memory. Nothing in a name says where such a loaded pointer points: two of them
may address the same buffer, at overlapping offsets, although their names and
subscripts differ. This module tells the three apart, using the declarations
and the file's typedefs and struct fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Function, Ref, TypeTable, Var

__all__ = ["Target", "base_name", "declaration", "member_levels", "target_of"]

_PATH_STEP = re.compile(r"->|\.|\[")


def base_name(name: str) -> str:
    """The variable an access path starts from: `a` of `a->f[i]`."""
    return _PATH_STEP.split(name, maxsplit=1)[0].strip()


Choice = tuple[str, bool, str]

_STEP = re.compile(r"(->|\.)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_ELEMENT = re.compile(r"\s*([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)+)")


@dataclass(frozen=True, slots=True)
class Target:
    """Where a reference lands.

    `kind` is "object" (the storage of the variable `root`: an array, or a field
    array of a struct variable), "pointee" (what the pointer variable `root` points
    to), "loaded" (what a pointer read from memory points to: `path` names it and
    its first `selectors` subscripts pick it) or "unseen" (no declaration found).
    """

    kind: str
    root: Var | None
    path: str = ""
    selectors: int = 0
    element: str = ""  # the base type of the element reached, when known
    union: bool = False  # the path passes through a union's field
    # Each choice the path makes inside an object, in order: the container (its
    # step and type, and the anonymous members on the way), whether it is a
    # union, and the member chosen. Two paths of one root overlap where they
    # first part in a union; where they part in a struct, they are apart.
    route: tuple[tuple[str, bool, str], ...] = ()


def declaration(
    name: str, fn: Function | None, globals_: tuple[Var, ...]
) -> Var | None:
    """The declaration of the variable a path starts from, in `fn` then globals."""
    base = _STEP.split(name, maxsplit=1)[0].strip()
    base = base.split("[", 1)[0].strip()  # `blocks[m].nei` starts from `blocks`
    found = fn.lookup(base) if fn is not None else None
    if found is None:
        found = next((g for g in globals_ if g.name == base), None)
    return found


def _full_levels(var: Var, types: TypeTable) -> str:
    """A declaration's levels with its typedefs' ones; "?" marks unknown levels."""
    more = types.levels_of(var.type)
    return var.shape + ("?" if more is None else more)


def member_var(
    name: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> Var | None:
    """The declaration of the member a path like `s->atoms->f` ends at, or its root."""
    found = declaration(name, fn, globals_)
    parts = _STEP.split(name)
    if found is None or any(not _IDENT.fullmatch(p.strip()) for p in parts[::2]):
        return None
    for step, field_name in zip(parts[1::2], parts[2::2], strict=True):
        levels = _full_levels(found, types)
        if levels != ("*" if step == "->" else ""):
            return None
        fields = types.fields_of(found.type)
        found = fields.get(field_name.strip()) if fields is not None else None
        if found is None:
            return None
    return found


def member_levels(
    name: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> str | None:
    """The levels of the member a path like `p->v` or `s.a.v` ends at; None if unknown.

    "[" first means the member is an array stored inside the struct, "*" a pointer.
    """
    root = declaration(name, fn, globals_)
    parts = _STEP.split(name)
    if root is None or any(not _IDENT.fullmatch(p.strip()) for p in parts[::2]):
        return None
    levels, type_ = _full_levels(root, types), root.type
    for step, field_name in zip(parts[1::2], parts[2::2], strict=True):
        if step == "->":
            if levels != "*":
                return None
            levels = ""
        fields = types.fields_of(type_) if not levels else None
        member = fields.get(field_name.strip()) if fields is not None else None
        if member is None:
            return None
        levels, type_ = _full_levels(member, types), member.type
    return levels


def target_of(
    ref: Ref, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> Target:
    """The object `ref` reaches (see Target)."""
    name = ref.name
    root = declaration(name, fn, globals_)
    if root is None:
        return Target("unseen", None, name)
    parts = _STEP.split(name)
    levels = _full_levels(root, types)
    kind, own_value = "object", True
    head = _ELEMENT.fullmatch(parts[0])
    if head is not None and len(parts) > 1:
        # `blocks[m].nei`: the element `blocks[m]` of an array of structs.
        for _ in range(head.group(2).count("[")):
            level, levels = levels[:1], levels[1:]
            if level == "*" and own_value and kind == "object":
                kind = "pointee"
            elif level != "[":
                return Target("loaded", root, name)
            own_value = False
        parts = [head.group(1), *parts[1:]]
    if any(not _IDENT.fullmatch(p.strip()) for p in parts[::2]):
        return Target("loaded", root, name)  # `a[f(k)].v`, `f().x`: not a plain path
    type_ = root.type
    # The storage the current value lies in, and whether the value is the
    # variable itself (not read from memory).
    path, union = parts[0].strip(), False
    route: list[Choice] = []
    for step, field_name in zip(parts[1::2], parts[2::2], strict=True):
        if step == "->":
            if not levels.startswith("*") or len(levels) != 1:
                return Target("loaded", root, name)
            kind = "pointee" if own_value and kind == "object" else "loaded"
            levels = ""
        if levels:
            return Target("loaded", root, name)  # a member of something not a struct
        union = union or types.is_union(type_)
        fields = types.fields_of(type_)
        member = fields.get(field_name.strip()) if fields is not None else None
        if member is None:
            # Fields unknown: a union's (or a struct's holding one) may overlap.
            union = union or (fields is None and "union" in _IDENT.findall(type_))
            return Target("loaded", root, name, union=union)
        route.extend(_choices(f"{len(route)}:{type_}", types, member))
        path = f"{path}{step}{field_name.strip()}"
        levels = _full_levels(member, types)
        type_ = member.type
        own_value = False
    used = max(len(ref.subscripts), 1 if ref.deref else 0)
    selectors = 0
    for position in range(used):
        level = levels[position] if position < len(levels) else "?"
        if level == "[":
            continue
        if level == "?":
            return Target("loaded", root, path, position, "", union, tuple(route))
        # A pointer: the variable's own value at the front, else read from memory.
        if position == 0 and own_value and kind == "object":
            kind = "pointee"
        else:
            kind, selectors = "loaded", position
    element = ""
    if len(levels) <= used:
        # The scalar a typedef names (`real3` is `double`), for the type rule.
        element = types.element_scalar(type_) or type_
    found = Target(kind, root, path, selectors, element, union, tuple(route))
    return _into_field(found, ref, types) if ref.field else found


def _into_field(target: Target, ref: Ref, types: TypeTable) -> Target:
    """`a[i].f` as a reference keeps `a` as its name: it reaches only the member `f`.

    The whole element would overlap every other member path of `a` (`a[i].v`),
    although a struct's members lie apart; a union's overlap (`route` says so).
    A bit-field shares its bytes with its neighbours: it reaches the element.
    """
    if ref.deref or ref.escapes or target.kind not in ("object", "pointee"):
        return target
    fields = types.fields_of(target.element) if target.element else None
    member = fields.get(ref.field) if fields is not None else None
    if member is None or target.route or member.bitfield:
        return target
    route = _choices(f"0:{target.element}", types, member)
    union = target.union or types.is_union(target.element)
    levels = _full_levels(member, types)
    element = "" if levels else types.element_scalar(member.type) or member.type
    path = f"{target.path}.{ref.field}"
    return Target(target.kind, target.root, path, 0, element, union, tuple(route))


def _choices(container: str, types: TypeTable, member: Var) -> list[Choice]:
    """The choices that reach `member` in an object of type `container`'s type.

    A member of anonymous members (`Var.route`) is chosen in each of them.
    """
    type_ = container.split(":", 1)[1]
    branches = (*member.route, member.name)
    out: list[Choice] = []
    for depth, branch in enumerate(branches):
        inside = "/".join(branches[:depth])
        union = types.overlays(type_) if depth == 0 else branches[depth - 1][-1] == "u"
        out.append((f"{container}/{inside}", union, branch))
    return out
