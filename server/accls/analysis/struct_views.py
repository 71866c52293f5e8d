"""Casts between pointers to related structs: C's derived-struct idiom.

`EamPotential *pot = (EamPotential *) s->pot;` with `s->pot` a `BasePotential *`,
where both structs begin with the same fields, views one struct object as its
derived type. Unlike `(long *) d`, which reads doubles as longs, such a cast
reinterprets no scalar storage: each field of the view is read as the type it
was stored with (reading a pointer field of another struct in its place would
be undefined by C's effective-type rules and give no usable pointer). The
element types of paths through such a pointer still tell objects apart.
"""

from __future__ import annotations

import re

from accls.analysis.access_paths import declaration, member_var
from accls.frontend import Function, SourceFile, TypeTable, Var

__all__ = ["struct_view"]

_QUALIFIERS = frozenset({"const", "volatile"})
_TYPE = re.compile(r"\(\s*((?:(?:const|volatile|struct)\s+)*[A-Za-z_]\w*)\s*\*\s*\)")
_PATH = re.compile(r"\s*\(?\s*([A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*\)?\s*")


def _struct(type_: str, types: TypeTable) -> dict[str, Var] | None:
    """The fields of the struct (not union) a type's words name, if known."""
    words = [w for w in type_.split() if w not in _QUALIFIERS]
    name = " ".join(words)
    if types.is_union(name):
        return None
    return types.fields_of(name)


def _shape(var: Var) -> tuple[str, int, str]:
    return (" ".join(var.type.split()), var.pointers, var.shape)


def struct_view(
    cast: str, operand: str, fn: Function | None, source: SourceFile
) -> bool:
    """Whether `(cast) operand` views a struct object as a related struct.

    `cast` is the cast's text (`(EamPotential *)`), `operand` the casted value:
    a variable or member path holding a pointer to a struct. The two structs
    must share their first field (by type, shape and pointer levels) and agree
    on every field both have, in order: the idiom of a base struct and a
    struct derived from it.
    """
    target = _TYPE.fullmatch(cast.strip())
    path = _PATH.fullmatch(operand)
    if target is None or path is None:
        return False
    types = source.types
    wanted = _struct(target.group(1), types)
    text = path.group(1)
    held = member_var(text, fn, source.globals, types)
    if held is None and not re.search(r"->|\.", text):
        held = declaration(text, fn, source.globals)
    if wanted is None or held is None or held.pointers != 1 or held.dims:
        return False
    if (types.levels_of(held.type) or "") != "":
        return False  # a typedef of a pointer: one more level than it shows
    given = _struct(held.type, types)
    if not given or not wanted:
        return False
    # Every field both have, in order (the shorter struct's fields).
    pairs = zip(given.values(), wanted.values(), strict=False)
    return all(_shape(a) == _shape(b) for a, b in pairs)
