"""Whether the objects two access targets reach may overlap (`pair_may_alias`)."""

from __future__ import annotations

import re

from accls.analysis.access_paths import Target
from accls.analysis.carved_blocks import carved_block
from accls.analysis.field_escape import sealed_local
from accls.frontend import (
    FROM_CALL,
    Function,
    TypeTable,
    Var,
)

__all__ = [
    "common_source",
    "is_array_object",
    "pair_may_alias",
    "pointer_apart_from",
    "shared_union",
    "storage_apart",
]

_STEPS = re.compile(r"->|\.")
_ANY_TYPE = frozenset({"char", "unsigned char", "signed char", "void"})
# The storage class of each scalar word: two objects share storage only when
# their types name one class. The signed and unsigned types of one width may
# alias (C11 6.5p7, C++ [basic.lval]); types of one width are kept together,
# as `long` and `long long` (or `int64_t`) may be one type on some targets.
_CLASS_OF = {
    "float": "float",
    "double": "double",
    "_Bool": "bool",
    "bool": "bool",
    "short": "int16",
    "int16_t": "int16",
    "uint16_t": "int16",
    "int": "int32",
    "unsigned": "int32",
    "signed": "int32",
    "int32_t": "int32",
    "uint32_t": "int32",
    "long": "int64",
    "size_t": "int64",
    "ptrdiff_t": "int64",
    "intptr_t": "int64",
    "uintptr_t": "int64",
    "int64_t": "int64",
    "uint64_t": "int64",
}
_QUALIFIERS = frozenset({"const", "volatile", "restrict", "__restrict", "__restrict__"})
_PRIMITIVE = frozenset(_CLASS_OF)


def _storage_class(type_: str, types: TypeTable | None) -> str | None:
    """The class of objects a scalar type's objects may share storage with.

    Typedef chains (`Real_t` -> `real8` -> `double`) are followed; None for a
    character type, `void`, an unknown name or anything not a plain scalar.
    """
    words = _scalar_words(type_, types)
    if words is None:
        return None
    found = {_CLASS_OF[w] for w in words}
    if found <= {"double", "int64"} and "double" in found:
        return "long double" if "long" in words else "double"
    if len(found) == 1:
        return found.pop()
    # `unsigned long`, `long int`, `short int`: the width word decides.
    for width in ("int64", "int16"):
        if width in found and found <= {width, "int32"}:
            return width
    return None


def _scalar_words(type_: str, types: TypeTable | None) -> list[str] | None:
    """The words of the plain scalar `type_` names (through typedefs), else None."""
    words = [w for w in type_.split() if w not in _QUALIFIERS]
    base = " ".join(words)
    if not set(words) <= _PRIMITIVE and types is not None:
        base = types.scalar_base(base) or base
        words = [w for w in base.split() if w not in _QUALIFIERS]
    if not words or not set(words) <= _PRIMITIVE:
        return None
    return words


def _storage_classes(type_: str, types: TypeTable | None) -> frozenset[str] | None:
    """Every class a scalar type may belong to on the usual targets, or None.

    `size_t` is `unsigned long` on 64-bit targets and `unsigned int` on 32-bit
    ones: it may share storage with either.
    """
    main = _storage_class(type_, types)
    if main is None:
        return None
    words = _scalar_words(type_, types) or []
    return frozenset({main, "int32"} if "size_t" in words else {main})


def _types_may_alias(a: Var, b: Var, types: TypeTable | None = None) -> bool:
    if a.type in _ANY_TYPE or b.type in _ANY_TYPE:
        return True
    class_a = _storage_classes(a.type, types)
    class_b = _storage_classes(b.type, types)
    if class_a is None or class_b is None:
        return True  # a character type, or a name we cannot resolve
    return bool(class_a & class_b)


def storage_apart(one: str, other: str, types: TypeTable | None) -> bool:
    """Whether objects of two element types never share storage (both scalars known)."""
    class_a = _storage_classes(one, types)
    class_b = _storage_classes(other, types)
    return class_a is not None and class_b is not None and not class_a & class_b


def pointer_apart_from(element: str, types: TypeTable | None = None) -> bool:
    """Whether a stored pointer cannot lie in memory of type `element`.

    C's effective-type rule: an object of a plain arithmetic type (not a
    character type) is never accessed as a pointer, so a pointer field and an
    element of that type never share storage.
    """
    return bool(element) and _storage_class(element, types) is not None


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


def _may_alias(
    a: Var, b: Var, typed: bool = True, types: TypeTable | None = None
) -> bool:
    """Conservatively, whether `a` and `b` may address the same memory.

    `typed`: whether their element types tell (no pointer cast set either).
    """
    if typed and not _types_may_alias(a, b, types):
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


def common_source(a: Target, b: Target, fn: Function | None) -> str:
    """The object two targets' pointers are both set from (`p = a + 1` and `a`), or "".

    Such pointers are based on one object: `restrict` on the arguments says
    nothing about them, so no promise that arguments never overlap sets them apart.
    """
    if a.kind not in ("pointee", "object") or b.kind not in ("pointee", "object"):
        return ""
    if a.root is None or b.root is None or a.root is b.root:
        return ""
    names = []
    for root in (a.root, b.root):
        own = {root.name}
        if root.scope == "local" and root.pointers:
            own |= _derived(root, fn)
        names.append(own - {FROM_CALL})
    shared = names[0] & names[1]
    return min(shared) if shared else ""


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


def _own_block(target: Target, fn: Function | None) -> Var | None:
    """The pointer or table whose fresh allocation `target` lies in, if any."""
    root = target.root
    if root is None or root.scope != "local":
        return None
    if target.kind == "pointee" and root.fresh:
        return root
    if target.kind == "pointee":
        return carved_block(root, fn)
    if target.kind == "loaded" and root.fresh_rows and target.path == root.name:
        return root
    return None


def pair_may_alias(
    a: Target, b: Target, fn: Function | None, types: TypeTable, typed: bool = True
) -> bool:
    """Whether the objects two targets reach may overlap (`typed`: see `_may_alias`)."""
    if shared_union(a, b):
        return True  # members of one union share storage, whatever their types
    # Past here, two paths of one root through a union part in a struct.
    if typed and a.element and b.element:
        left = Var(name="", type=a.element)
        right = Var(name="", type=b.element)
        if not _types_may_alias(left, right, types):
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
    for own, other in ((_own_block(a, fn), b), (_own_block(b, fn), a)):
        if own is not None and _fresh_apart(own, other, fn):
            return False
    if a.kind in ("loaded", "unseen") or b.kind in ("loaded", "unseen"):
        return True
    if a.root is None or b.root is None:
        return True
    if a.root is b.root and a.kind == b.kind and _disjoint_fields(a.path, b.path):
        return False
    if _based_on_restrict(a.root, b.root, fn) or _based_on_restrict(b.root, a.root, fn):
        return True
    return _may_alias(a.root, b.root, typed, types)


def shared_union(a: Target, b: Target) -> bool:
    """Two different paths from one variable that part inside a union.

    `u.d[i]` and `u.l[i]` of `union { double d[N]; long l[N]; } u` are one
    storage: writing either changes the other (C allows reading a union through
    another member). Paths that part in a struct (`s.x` beside the union
    `s.u`, or beside the members of an anonymous union) are apart; paths whose
    parting is not known (one contains the other) overlap when a union lies on
    the way.
    """
    if (
        a.root is None
        or a.root is not b.root
        or not (a.union or b.union)
        or a.path == b.path
    ):
        return False
    for one, two in zip(a.route, b.route, strict=False):
        if one == two:
            continue
        return one[0] != two[0] or one[1]  # the same container: a union's members
    return True


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
