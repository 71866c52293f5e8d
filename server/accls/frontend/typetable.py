"""Typedefs and struct fields by name: how many pointers an access path loads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from accls.frontend.model import Var

__all__ = ["TypeTable"]

_SCALAR_WORDS = frozenset(
    "char short int long float double unsigned signed _Bool bool size_t ptrdiff_t "
    "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t "
    "uintptr_t _Complex complex void FILE".split()
)
_DEPTH = 16  # typedef chains longer than this are read as unknown


@dataclass(frozen=True, slots=True)
class TypeTable:
    """Typedefs (name -> base type and levels) and struct fields by struct key."""

    typedefs: tuple[tuple[str, str, str], ...] = ()  # name, base type, levels
    structs: tuple[tuple[str, tuple[Var, ...]], ...] = ()  # "struct S"/typedef name
    unions: frozenset[str] = frozenset()  # the keys of structs that are unions
    # Those of `unions` that are structs holding an anonymous union: only the
    # members of that union overlap (their fields' `route` says which).
    holders: frozenset[str] = frozenset()
    volatiles: frozenset[str] = frozenset()  # typedef names of `volatile` types
    # The extents a typedef's own array declarator adds (`typedef double row[M]`).
    extents: tuple[tuple[str, tuple[str | None, ...]], ...] = ()
    # File-scope enumerators: name and value as C text (`enumerators`).
    enumerators: tuple[tuple[str, str], ...] = ()
    _defs: dict[str, tuple[str, str]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _fields: dict[str, dict[str, Var]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for name, base, levels in self.typedefs:
            self._defs.setdefault(name, (base, levels))
        for key, fields in self.structs:
            self._fields.setdefault(key, {v.name: v for v in fields})

    def merged(self, other: TypeTable) -> TypeTable:
        """This table with `other`'s entries for the names it lacks."""
        if not other.typedefs and not other.structs and not other.enumerators:
            return self
        return TypeTable(
            typedefs=(*self.typedefs, *other.typedefs),
            structs=(*self.structs, *other.structs),
            unions=self.unions | other.unions,
            holders=self.holders | other.holders,
            volatiles=self.volatiles | other.volatiles,
            extents=(*self.extents, *other.extents),
            enumerators=(*self.enumerators, *other.enumerators),
        )

    def _resolve(self, type_: str) -> tuple[str, str] | None:
        """The struct key or scalar a type names, and the levels its typedefs add."""
        levels = ""
        for _ in range(_DEPTH):
            words = type_.split()
            if not words:
                return None
            if words[0] in ("struct", "union"):
                return type_, levels
            if words[0] == "enum" or set(words) <= _SCALAR_WORDS:
                return "", levels
            if type_ in self._fields:
                return type_, levels  # a typedef of an anonymous struct
            found = self._defs.get(type_)
            if found is None:
                return None
            type_, more = found
            levels += more
        return None

    def scalar_base(self, type_: str) -> str | None:
        """The scalar type a chain of typedefs names, adding no levels; else None."""
        for _ in range(_DEPTH):
            if set(type_.split()) <= _SCALAR_WORDS:
                return type_
            found = self._defs.get(type_)
            if found is None or found[1]:
                return None
            type_ = found[0]
        return None

    def element_scalar(self, type_: str) -> str | None:
        """The scalar a chain of typedefs ends at, whatever levels they add.

        `real3` with `typedef double real3[3]` is `double`: the element reached
        once every level is subscripted. None for a struct or an unknown name.
        """
        for _ in range(_DEPTH):
            if set(type_.split()) <= _SCALAR_WORDS:
                return type_
            found = self._defs.get(type_)
            if found is None:
                return None
            type_ = found[0]
        return None

    def dims_of(self, type_: str) -> tuple[str | None, ...] | None:
        """The extents the typedefs of a type add, outermost first.

        None unless every level they add is an array level of known extent.
        """
        own = dict(self.extents)
        dims: tuple[str | None, ...] = ()
        for _ in range(_DEPTH):
            found = self._defs.get(type_)
            if found is None:
                return dims
            base, levels = found
            more = own.get(type_, ())
            if set(levels) - {"["} or len(more) != len(levels):
                return None
            dims = (*dims, *more)
            type_ = base
        return None

    def levels_of(self, type_: str) -> str | None:
        """The levels a base type adds after a declarator's own; None if unknown."""
        found = self._resolve(type_)
        return None if found is None else found[1]

    def fields_of(self, type_: str) -> dict[str, Var] | None:
        """The fields of the struct a base type names; None if not a known struct."""
        found = self._resolve(type_)
        if found is None or found[1] or not found[0]:
            return None
        return self._fields.get(found[0])

    def is_union(self, type_: str) -> bool:
        """True when a base type names a union (its fields overlap)."""
        key = self.struct_key(type_)
        return key is not None and (key.startswith("union ") or key in self.unions)

    def overlays(self, type_: str) -> bool:
        """True when a base type names a union itself, not a struct holding one."""
        key = self.struct_key(type_)
        return self.is_union(type_) and key not in self.holders

    def struct_key(self, type_: str) -> str | None:
        """The key of the struct a base type names (through typedefs), if any."""
        found = self._resolve(type_)
        return found[0] if found is not None and found[0] else None
