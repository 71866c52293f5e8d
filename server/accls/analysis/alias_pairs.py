"""Whether the objects two access targets reach may overlap (`pair_may_alias`)."""

from __future__ import annotations

import re

from accls.analysis.access_paths import Target
from accls.analysis.field_escape import sealed_local
from accls.frontend import (
    FROM_CALL,
    Function,
    TypeTable,
    Var,
)

__all__ = [
    "is_array_object",
    "pair_may_alias",
    "pointer_apart_from",
    "shared_union",
]

_STEPS = re.compile(r"->|\.")
_ANY_TYPE = frozenset({"char", "unsigned char", "signed char", "void"})
_PRIMITIVE = frozenset(
    [
        "char",
        "short",
        "int",
        "long",
        "float",
        "double",
        "unsigned",
        "signed",
        "_Bool",
        "bool",
        "size_t",
        "int8_t",
        "int16_t",
        "int32_t",
        "int64_t",
        "uint8_t",
        "uint16_t",
        "uint32_t",
        "uint64_t",
    ]
)


# The standard typedefs as the type they name on the usual targets (`size_t`
# is `unsigned int` on 32-bit ones, `unsigned long` on 64-bit ones; the `long`s
# share one class), and the words that do not change the alias class: an object
# may be read as the signed or unsigned type corresponding to its own (C11
# 6.5p7), a complex one through its parts.
_CLASS_OF = {
    "size_t": ("int", "long"),
    "int8_t": ("char",),
    "uint8_t": ("char",),
    "int16_t": ("short",),
    "uint16_t": ("short",),
    "int32_t": ("int",),
    "uint32_t": ("int",),
    "int64_t": ("long",),
    "uint64_t": ("long",),
    "bool": ("_Bool",),
}
_NEUTRAL = frozenset({"signed", "unsigned", "_Complex", "complex"})


def _alias_classes(type_: str) -> frozenset[str]:
    """The classes of accesses that may reach an object of the primitive `type_`."""
    words = [w for w in type_.split() if w not in _NEUTRAL]
    if len(words) == 1 and words[0] in _CLASS_OF:
        return frozenset(_CLASS_OF[words[0]])
    if not words:
        return frozenset({"int"})  # `unsigned` alone
    if "char" in words:
        return frozenset({"char"})
    if "long" in words and "double" not in words:
        return frozenset({"long"})  # long, long int, long long: one class, to be safe
    if "short" in words:
        return frozenset({"short"})
    return frozenset({" ".join(sorted(set(words)))})


def _types_may_alias(a: Var, b: Var) -> bool:
    if a.type in _ANY_TYPE or b.type in _ANY_TYPE:
        return True
    primitive_a = set(a.type.split()) <= _PRIMITIVE
    primitive_b = set(b.type.split()) <= _PRIMITIVE
    if primitive_a and primitive_b:
        left, right = _alias_classes(a.type), _alias_classes(b.type)
        return bool(left & right) or "char" in left | right
    return True  # a typedef may name either type


def pointer_apart_from(element: str) -> bool:
    """Whether a stored pointer cannot lie in memory of type `element`.

    C's effective-type rule: an object of a plain arithmetic type (not a
    character type) is never accessed as a pointer, so a pointer field and an
    element of that type never share storage.
    """
    return (
        bool(element)
        and element not in _ANY_TYPE
        and "char" not in element.split()
        and set(element.split()) <= _PRIMITIVE
    )


def _is_pointer(var: Var) -> bool:
    """A pointer, a pointer to rows (`double (*r)[8]`) included."""
    return var.pointers > 0 and (not var.dims or var.shape.startswith("*"))


def is_array_object(var: Var | None) -> bool:
    """True for a local array object: no pointer from outside can reach it."""
    return (
        var is not None
        and var.scope == "local"
        and not _is_pointer(var)
        and bool(var.dims)
    )


def _may_alias(a: Var, b: Var, typed: bool = True) -> bool:
    """Conservatively, whether `a` and `b` may address the same memory.

    `typed`: whether their element types tell (no pointer cast set either).
    """
    if typed and not _types_may_alias(a, b):
        return False
    if a.restrict or b.restrict:
        return False
    if not _is_pointer(a) and not _is_pointer(b):
        return False  # two distinct array objects (array-syntax parameters included)
    pointer, other = (a, b) if _is_pointer(a) else (b, a)
    # A parameter cannot point into a local array of the function it is passed to.
    local_array = other.scope == "local" and not _is_pointer(other)
    return not (local_array and pointer.scope == "param")


def _derived(var: Var, fn: Function | None) -> set[str]:
    """The locals (and FROM_CALL) whose values may flow into the pointer `var`."""
    seen: set[str] = set()
    todo = list(var.sources)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        found = fn.lookup(name) if fn is not None and name != FROM_CALL else None
        if found is not None:
            todo.extend(found.sources)
    return seen


def _fresh_apart(own: Var, other: Target, fn: Function | None) -> bool:
    """Whether a block only `own` reaches (fresh, or its fresh rows) misses `other`."""
    if other.kind == "object":
        return True
    if other.kind == "unseen" or other.root is None:
        return False
    if other.root is own:
        return False  # the same pointer or table: the subscripts decide
    if other.kind == "loaded":
        return other.root.fresh_rows or not own.leaves
    held = other.root
    if held.scope == "param":
        return True  # set before the block was allocated
    if held.scope != "local":
        return not own.leaves
    if held.fresh:
        return True
    if held.address_taken:
        return False
    derived = _derived(held, fn)
    return own.name not in derived and not (FROM_CALL in derived and own.leaves)


def _sealed(target: Target, fn: Function | None, types: TypeTable) -> bool:
    """A local array object whose address never leaves its name (see `sealed_local`)."""
    return (
        target.kind == "object"
        and target.root is not None
        and fn is not None
        and not target.union
        and sealed_local(target.root, fn, types)
    )


def _own_block(target: Target) -> Var | None:
    """The pointer or table whose fresh allocation `target` lies in, if any."""
    root = target.root
    if root is None or root.scope != "local":
        return None
    if target.kind == "pointee" and root.fresh:
        return root
    if target.kind == "loaded" and root.fresh_rows and target.path == root.name:
        return root
    return None


def pair_may_alias(
    a: Target, b: Target, fn: Function | None, types: TypeTable, typed: bool = True
) -> bool:
    """Whether the objects two targets reach may overlap (`typed`: see `_may_alias`)."""
    if shared_union(a, b):
        return True  # members of one union share storage, whatever their types
    if typed and a.element and b.element:
        left = Var(name="", type=a.element)
        right = Var(name="", type=b.element)
        if not _types_may_alias(left, right):
            return False
    for one, other in ((a, b), (b, a)):
        root = one.root if one.kind == "loaded" else None
        if (
            root is not None
            and root.restrict_rows
            and one.path == root.name
            and other.root is not root
        ):
            return False  # `restrict` rows: no other pointer reaches them
    if a.root is not b.root and (_sealed(a, fn, types) or _sealed(b, fn, types)):
        return False  # no pointer can reach a local array whose address stays put
    for own, other in ((_own_block(a), b), (_own_block(b), a)):
        if own is not None and _fresh_apart(own, other, fn):
            return False
    if a.kind in ("loaded", "unseen") or b.kind in ("loaded", "unseen"):
        return True
    if a.root is None or b.root is None:
        return True
    if (
        a.root is b.root
        and a.kind == b.kind
        and not (a.union or b.union)
        and _disjoint_fields(a.path, b.path)
    ):
        return False
    if _based_on_restrict(a.root, b.root, fn) or _based_on_restrict(b.root, a.root, fn):
        return True
    return _may_alias(a.root, b.root, typed)


def shared_union(a: Target, b: Target) -> bool:
    """Two different paths from one variable where a union lies on the way.

    `u.d[i]` and `u.l[i]` of `union { double d[N]; long l[N]; } u` are one
    storage: writing either changes the other (C allows reading a union through
    another member). Conservatively any two paths of one root through a union.
    """
    return (
        a.root is not None
        and a.root is b.root
        and (a.union or b.union)
        and a.path != b.path
    )


def _based_on_restrict(own: Var, other: Var, fn: Function | None) -> bool:
    """Whether `other` is a local whose value may come from the `restrict` `own`.

    `restrict` promises that no pointer *not based on* `own` reaches its object;
    `double *p = b + 1` is based on `b`, so `p[i]` and `b[i + 1]` are the same
    element. A value from a call may be such a pointer too.
    """
    if not own.restrict or other.restrict or other.scope != "local":
        return False
    derived = _derived(other, fn)
    return own.name in derived or FROM_CALL in derived


def _disjoint_fields(left: str, right: str) -> bool:
    """Paths to two different fields of one object (neither contains the other)."""
    a, b = _STEPS.split(left), _STEPS.split(right)
    size = min(len(a), len(b))
    return len(a) > 1 and len(b) > 1 and a[:size] != b[:size]
