"""The struct field a path like `s->atoms->p` or `blocks[m].nei` ends at.

Field points-to keys its facts by (struct, field): every store to `Atoms.p`,
whichever variable reaches the struct. This module reads a path's text, walks
its steps through the declarations and the file's struct types, and names the
struct and the field of its last step, or what a plain name is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.frontend import Function, TypeTable, Var

__all__ = [
    "FieldRef",
    "Walked",
    "balanced",
    "full_levels",
    "resolve_field",
    "strip_casts",
    "struct_of_value",
    "top_offset",
    "walk_path",
]

_TOKEN = re.compile(r"->|\.|\[|[A-Za-z_]\w*")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_CAST = re.compile(r"^\((?:const|volatile|struct|union)?[A-Za-z_]\w*\**\)")
_DEREF = re.compile(r"^\(\s*\*\s*([A-Za-z_]\w*)\s*\)")  # `(*slot)->f`


@dataclass(frozen=True, slots=True)
class FieldRef:
    """The last field of a path: its struct's key, its name and its declaration."""

    key: str
    field: str
    member: Var
    levels: str  # the member's levels, its typedefs' included


@dataclass(frozen=True, slots=True)
class Walked:
    """Where a path's walk ended: the base type and levels left, the last field."""

    root: Var
    type_: str
    levels: str
    last: FieldRef | None
    union: bool


def full_levels(var: Var, types: TypeTable) -> str | None:
    """A declaration's levels with its typedefs'; None when they are unknown."""
    more = types.levels_of(var.type)
    return None if more is None else var.shape + more


def _split(path: str) -> list[str] | None:
    """`a[k].b->c` into `a`, `[`, `.`, `b`, `->`, `c`; None when it is no plain path."""
    out: list[str] = []
    pos, depth = 0, 0
    while pos < len(path):
        char = path[pos]
        if depth:
            depth += {"[": 1, "]": -1}.get(char, 0)
            pos += 1
            continue
        if char == "[":
            out.append("[")
            depth = 1
            pos += 1
            continue
        match = _TOKEN.match(path, pos)
        if match is None:
            return None
        out.append(match.group(0))
        pos = match.end()
    return out if not depth and out and _IDENT.fullmatch(out[0]) else None


def walk_path(
    path: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> Walked | None:
    """Follow `path` through declarations and struct fields; None when unsure.

    `(*slot)->f` is read as `slot[0]->f`.
    """
    deref = _DEREF.match(path)
    if deref is not None:
        path = f"{deref.group(1)}[0]{path[deref.end() :]}"
    tokens = _split(path)
    if tokens is None:
        return None
    root = fn.lookup(tokens[0]) if fn is not None else None
    if root is None:
        root = next((g for g in globals_ if g.name == tokens[0]), None)
    if root is None:
        return None
    levels = full_levels(root, types)
    if levels is None:
        return None
    type_, last, union = root.type, None, False
    rest = tokens[1:]
    while rest:
        step = rest.pop(0)
        if step == "[":
            if not levels:
                return None
            levels = levels[1:]
            continue
        if step == "->":
            if not levels.startswith("*") or len(levels) != 1:
                return None
            levels = ""
        elif step != "." or levels:
            return None
        if not rest or not _IDENT.fullmatch(rest[0]):
            return None
        name = rest.pop(0)
        key = types.struct_key(type_)
        fields = types.fields_of(type_)
        member = fields.get(name) if fields is not None else None
        if key is None or member is None:
            return None
        union = union or types.is_union(type_)
        member_levels = full_levels(member, types)
        if member_levels is None:
            return None
        last = FieldRef(key, name, member, member_levels)
        levels, type_ = member_levels, member.type
    return Walked(root, type_, levels, last, union)


def resolve_field(
    path: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> FieldRef | None:
    """The field a path names as a whole (`x->f`, not `x->f[k]`); None if unsure."""
    walked = walk_path(path, fn, globals_, types)
    if walked is None or walked.last is None or walked.union:
        return None
    if walked.levels != walked.last.levels:
        return None  # subscripted after the field: an element, not the field
    return walked.last


def struct_of_value(
    text: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> str | None:
    """The struct a pointer expression (`s`, `&s`, `&a[k]`, `s->sub`) points to."""
    address = text.startswith("&")
    body = text[1:] if address else text
    walked = walk_path(body, fn, globals_, types)
    if walked is None:
        return None
    key = types.struct_key(walked.type_)
    if key is None:
        return None
    if address and walked.levels == "":
        return key
    if not address and walked.levels in ("*", "["):
        return key
    return None


def balanced(text: str) -> bool:
    """Whether the parentheses of `text` pair up."""
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def strip_casts(text: str) -> str:
    """`text` without enclosing parentheses and leading casts (`(int *)p`)."""
    while True:
        if text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
            text = text[1:-1]
            continue
        cast = _CAST.match(text)
        if cast is None or cast.end() == len(text):
            return text
        text = text[cast.end() :]


def top_offset(text: str) -> str:
    """`p + k` and `p - k` into `p` (the object does not change)."""
    depth = 0
    for pos, char in enumerate(text):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if depth == 0 and char in "+-" and pos > 0:
            if char == "-" and text[pos + 1 : pos + 2] == ">":
                continue
            if text[pos - 1] in "+-" or text[pos + 1 : pos + 2] in ("+", "-"):
                return ""  # `p++`, `--p`: not a plain offset
            return text[:pos]
    return text
