"""The user destructors that destroying a C++ object runs.

An object of a class with a user destructor (`~E()`) runs it when it dies: a
local leaving its scope, a temporary at the end of its full-expression, `delete
p`, and each element a container destroys (a local container leaving scope,
`pop_back`, `erase`, `clear`, `resize` or `assign` to fewer, a growing vector
moving its elements to new storage). The implicit destructor of a class runs
its members' and its bases' destructors, and a standard container or wrapper
its elements': each named here is a call whose summary says what it writes (a
global counter, say), so a loop doing so is not parallel unseen.
"""

from __future__ import annotations

from accls.frontend.cpp_types import (
    CxxScope,
    CxxType,
    TypeKind,
    classify,
    template_args,
    unqualified,
)
from accls.frontend.model import NEW_OBJECT

__all__ = ["DESTROYING_METHODS", "destructors", "dying_object"]

# Container methods that may destroy elements: removed ones, or (for a vector
# that grows) the old ones after they are moved into new storage.
DESTROYING_METHODS = frozenset(
    {
        "pop_back", "pop_front", "erase", "clear", "resize", "assign",
        "push_back", "emplace_back", "insert", "emplace", "reserve",
        "shrink_to_fit",
    }
)  # fmt: skip
# Standard templates that own objects of their class arguments.
_OWNING = frozenset(
    {
        "vector", "array", "valarray", "deque", "list", "forward_list", "map",
        "multimap", "set", "multiset", "unordered_map", "unordered_set",
        "unordered_multimap", "unordered_multiset", "pair", "tuple", "optional",
        "unique_ptr", "shared_ptr", "stack", "queue", "priority_queue",
    }
)  # fmt: skip
_DEPTH = 8


def destructors(text: str, scope: CxxScope) -> tuple[str, ...]:
    """The user destructors (`E::~E`) destroying one object of type `text` runs.

    Its class's own, then its members' and bases' (classes of this file only:
    one defined elsewhere has no destructor the file can see). For an array, a
    standard container or wrapper, those of its elements.
    """
    out: list[str] = []
    _collect(text, scope, out, set(), 0)
    return tuple(out)


def dying_object(kind: CxxType, name: str) -> str:
    """The `this` its destructors get of a variable `name` leaving its scope.

    The variable for an object of the file's classes; for an array's or a
    standard container's elements, each a new object the variable owns.
    """
    if kind.kind is TypeKind.CLASS and not kind.name.startswith("std::"):
        return name
    return NEW_OBJECT


def _collect(
    text: str, scope: CxxScope, out: list[str], seen: set[str], depth: int
) -> None:
    plain = text.strip()
    if depth > _DEPTH or not plain or "&" in plain:
        return
    if plain.endswith("]"):  # `E a[4]`: each element
        _collect(plain.rsplit("[", 1)[0], scope, out, seen, depth + 1)
        return
    if plain.endswith("*"):
        return  # a pointer: nothing destroyed with it
    kind = classify(plain, scope)
    if kind.kind is TypeKind.CONTAINER:
        if kind.name != "std::span":
            _collect(kind.element, scope, out, seen, depth + 1)
        return
    if kind.kind is not TypeKind.CLASS:
        return
    if kind.name.startswith("std::") or (scope.using_std and "<" in plain):
        if unqualified(plain) in _OWNING:
            for arg in template_args(plain):
                _collect(arg, scope, out, seen, depth + 1)
        if kind.name.startswith("std::"):
            return
    cls = unqualified(kind.name)
    info = scope.classes.get(cls)
    if info is None or cls in seen:
        return
    seen.add(cls)
    if f"~{cls}" in info.methods:
        out.append(f"{kind.name}::~{cls}")
    for member, member_type in info.fields.items():
        if member not in info.statics and member not in info.references:
            _collect(member_type, scope, out, seen, depth + 1)
    for base in info.bases:
        _collect(base, scope, out, seen, depth + 1)
