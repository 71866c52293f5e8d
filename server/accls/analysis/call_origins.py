"""What object a call's pointer argument points into, when its text shows it.

`f(a, b + 1, &s.x[2], rows[r], p)` in a caller: the local or global array `a`,
the array `b`, the array field `x` of the struct `s`, the 2-D array `rows`,
and, for the caller's parameter `p`, whatever the caller's own callers passed.
The call-site proofs (`call_sites`) compare two arguments' origins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.field_paths import balanced, resolve_field
from accls.frontend import Function, SourceFile, Var

__all__ = [
    "Origin",
    "argument_origin",
    "origins_overlap",
    "reassigned",
    "strip_argument",
]

_CAST = re.compile(r"^\(\s*(?:const\s+)?[A-Za-z_][\w\s]*\**\s*\)\s*")
_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*")
_OFFSET = re.compile(r"^([A-Za-z_]\w*)\s*(?:\+|-(?!>))")  # `p->f` is no `p - k`
_ROW = re.compile(r"([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)+)")
_MEMBER = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)+")


@dataclass(frozen=True, slots=True)
class Origin:
    """What an argument points into: `kind` is param, local, fresh, global or field.

    A `field` origin is what a pointer field holds (`w.p`, `s->p`): `path` is the
    struct's key and the field's name, joined by a space, for the field sets.
    """

    kind: str
    function: str  # the caller, for locals, fresh blocks and parameters
    path: str  # `a`, or `s.a` for an array field of a struct object
    union: bool = False
    # A fresh table whose every row is a block of its own (`t[i] = malloc(..)`).
    rows: bool = False


def strip_argument(arg: str) -> str:
    """The argument's text without its enclosing parentheses and casts."""
    text = arg.strip()
    while True:
        if text.startswith("(") and text.endswith(")") and balanced(text[1:-1]):
            text = text[1:-1].strip()
            continue
        cast = _CAST.match(text)
        if cast is None or cast.end() == len(text):
            return text
        text = text[cast.end() :].strip()


def _lookup(root: str, caller: Function, source: SourceFile) -> Var | None:
    var = caller.lookup(root)
    if var is None:
        var = next((g for g in source.globals if g.name == root), None)
    return var


def _row(text: str, caller: Function, source: SourceFile) -> str | None:
    """`rows[r]` of an array of arrays (not a parameter): a row inside `rows`."""
    found = _ROW.fullmatch(text)
    if found is None:
        return None
    var = _lookup(found.group(1), caller, source)
    depth = found.group(2).count("[")
    if var is None or var.scope == "param" or var.unknown_shape:
        return None
    # Every level indexed and the one the value points into are array levels.
    return var.name if var.shape.startswith("[" * (depth + 1)) else None


def argument_origin(arg: str, caller: Function, source: SourceFile) -> Origin | None:
    """The object an argument's pointer value lies in, when the text shows it."""
    found = _object_origin(arg, caller, source)
    if found is None:
        found = _fresh_row(arg, caller)
    return found if found is not None else _field_origin(arg, caller, source)


def _fresh_row(arg: str, caller: Function) -> Origin | None:
    """A fresh local table `t` (kind `fresh`), or its row `t[i]` (kind `row`).

    The rows of a table whose every row is a block of its own (`t[i] =
    malloc(..)`) are distinct blocks, and none lies in an array, a global, a
    fresh block held by a local, or what the caller's parameters held before
    it allocated them; two rows of one table may be the same row.
    """
    text = strip_argument(arg)
    found = _ROW.fullmatch(text)
    name = found.group(1) if found is not None else text
    if found is not None and found.group(2).count("[") != 1:
        return None
    var = caller.lookup(name)
    if var is None or caller.declarations(var.name) != 1 or var.scope != "local":
        return None
    if var.static or var.address_taken or var.shape != "**":
        return None
    if found is None:
        if not var.fresh or var.leaves:
            return None
        return Origin("fresh", caller.name, name, rows=var.fresh_rows)
    return Origin("row", caller.name, var.name) if var.fresh_rows else None


def _field_origin(arg: str, caller: Function, source: SourceFile) -> Origin | None:
    """`w.p` or `s->p` of a plain pointer field: whatever the program stores there."""
    text = strip_argument(arg)
    if _MEMBER.fullmatch(text) is None:
        return None
    path = re.sub(r"\s+", "", text)
    found = resolve_field(path, caller, source.globals, source.types)
    if found is None or found.levels != "*":
        return None
    return Origin("field", caller.name, f"{found.key} {found.field}")


def _object_origin(arg: str, caller: Function, source: SourceFile) -> Origin | None:
    text = strip_argument(arg)
    address = text.startswith("&")
    indexed = False
    if address:
        text = text[1:].strip()
        indexed = "[" in text
        text = text.split("[", 1)[0].strip()  # `&a[k]`: into the object `a`
        if indexed:
            # `&p[k]` of a pointer `p` is `p + k`: into what `p` points to.
            address = False
    else:
        offset = _OFFSET.match(text)
        if offset is not None:
            text = offset.group(1)  # `a + k`: into the object `a`
        row = _row(text, caller, source) if "[" in text else None
        if row is not None:
            text = row  # `rows[r]`: into the array `rows`
    path = _PATH.fullmatch(text)
    if path is None:
        return None
    path_text = re.sub(r"\s+", "", text)
    root = path_text.split(".", 1)[0]
    var = _lookup(root, caller, source)
    if var is None:
        return None
    union = source.types.is_union(var.type)
    object_ = address or var.shape.startswith("[") or "." in path_text
    if object_ and var.scope != "param":
        if "." in path_text and not (address or var.shape == ""):
            return None  # `p.f` of an array or pointer: not a plain object
        pointer_field = not address and not _array_field(var, path_text, source)
        if "." in path_text and pointer_field:
            return None  # `s.p` of a pointer field: it may point anywhere
        kind = "local" if var.scope == "local" and not var.static else "global"
        return Origin(kind, caller.name, path_text, union)
    if address or "." in path_text or var.shape != "*":
        return None
    if var.scope == "param":
        # `x = y + 1;` before the call: `x` no longer holds what callers passed.
        if reassigned(root, caller):
            return None
        return Origin("param", caller.name, root)
    # A `static` local keeps its block across calls: a caller may hold it too.
    if var.scope == "local" and var.fresh and not (var.address_taken or var.static):
        return Origin("fresh", caller.name, root, rows=var.fresh_rows)
    return None


def reassigned(name: str, caller: Function) -> bool:
    """Whether the caller assigns the pointer `name` itself, or takes its address.

    `&name[i]` and `&name->f` take an element's or a field's address, which
    leaves the pointer as the callers passed it.
    """
    return any(
        r.name == name
        and (r.escapes or r.is_write)
        and not (r.subscripts or r.deref or r.member)
        for r in caller.refs
    )


def _array_field(var: Var, path: str, source: SourceFile) -> bool:
    """True when `s.f.g` names an array field reached through plain struct fields."""
    type_, shape = var.type, var.shape
    for name in path.split(".")[1:]:
        if shape != "":
            return False  # through an array or a pointer: not one object
        fields = source.types.fields_of(type_)
        field = None if fields is None else fields.get(name)
        if field is None:
            return False
        type_, shape = field.type, field.shape
    return shape.startswith("[")


def origins_overlap(a: Origin, b: Origin) -> bool:
    """Two objects named by paths overlap unless they are distinct fields."""
    if a.kind != b.kind or (a.function != b.function and a.kind != "global"):
        return False
    left, right = a.path.split("."), b.path.split(".")
    size = min(len(left), len(right))
    if left[0] != right[0]:
        return False
    return a.union or left[:size] == right[:size]
