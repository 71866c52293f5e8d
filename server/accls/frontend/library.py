"""The effects of C library and runtime functions, read from `library_effects.toml`.

The table is data shipped with the package (one documented file, not code): the
front end takes its allocators from it, the analysis the effects of calls into
functions the program does not define.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

__all__ = ["Effect", "LibraryFunction", "library", "library_function", "names_with"]

_TABLE = "library_effects.toml"
_TABLES = (_TABLE, "library_effects_cpp.toml")  # C, then C++ (`std::` names)


class Effect(StrEnum):
    """What a library function does, as the sections of the table name it."""

    PURE = "pure"
    ALLOC = "alloc"
    FREE = "free"
    MEMORY = "memory"
    IO = "io"
    HIDDEN = "hidden"
    THREAD = "thread"
    QUERY = "query"


@dataclass(frozen=True, slots=True, kw_only=True)
class LibraryFunction:
    """One function of the table: its effect and the arguments it writes and reads."""

    name: str
    effect: Effect
    writes: tuple[int, ...] = ()  # argument positions written through
    reads: tuple[int, ...] = ()  # argument positions read through
    calls: tuple[int, ...] = ()  # argument positions of functions it calls
    permutes: tuple[int, ...] = ()  # positions whose elements it only reorders
    device: bool = False  # an allocator of device memory
    format: int = -1  # a printf-like format's position; the arguments after it vary


def _names(section: dict[str, Any], key: str = "names") -> list[str]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{_TABLE}: `{key}` must be a list of names")
    return value


def _positions(entry: dict[str, Any], key: str, name: str) -> tuple[int, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{_TABLE}: `{name}.{key}` must be a list of positions")
    return tuple(value)


def _entries(raw: dict[str, Any]) -> dict[str, LibraryFunction]:
    out: dict[str, LibraryFunction] = {}

    def add(name: str, effect: Effect, **more: Any) -> None:
        if name in out:
            raise ValueError(f"{_TABLE}: `{name}` is listed twice")
        out[name] = LibraryFunction(name=name, effect=effect, **more)

    pure = raw.get("pure", {})
    for name in _names(pure, "math"):
        for variant in (name, name + "f", name + "l"):
            add(variant, Effect.PURE)
    for name in _names(pure):
        add(name, Effect.PURE)
    alloc = raw.get("alloc", {})
    for name in _names(alloc):
        add(name, Effect.ALLOC)
    for name in _names(alloc, "device"):
        add(name, Effect.ALLOC, device=True)
    for name in _names(raw.get("free", {})):
        add(name, Effect.FREE, writes=(0,))
    for name, entry in raw.get("memory", {}).items():
        if not isinstance(entry, dict):
            raise ValueError(f"{_TABLE}: `memory.{name}` must be a table")
        add(
            name,
            Effect.MEMORY,
            writes=_positions(entry, "writes", name),
            reads=_positions(entry, "reads", name),
            calls=_positions(entry, "calls", name),
            permutes=_positions(entry, "permutes", name),
            format=entry.get("format", -1),
        )
    for effect in (Effect.IO, Effect.HIDDEN, Effect.THREAD, Effect.QUERY):
        for name in _names(raw.get(effect.value, {})):
            add(name, effect)
    return out


@cache
def library() -> MappingProxyType[str, LibraryFunction]:
    """Every function of the table by name (read once)."""
    folder = resources.files("accls.frontend")
    out: dict[str, LibraryFunction] = {}
    for table in _TABLES:
        entries = _entries(tomllib.loads(folder.joinpath(table).read_text("utf-8")))
        twice = sorted(set(entries) & set(out))
        if twice:
            raise ValueError(f"{table}: `{twice[0]}` is listed twice")
        out.update(entries)
    return MappingProxyType(out)


def names_with(effect: Effect) -> frozenset[str]:
    """The functions of the table with this effect."""
    return frozenset(f.name for f in library().values() if f.effect is effect)


def library_function(name: str) -> LibraryFunction | None:
    """The table's entry for `name`, if the table knows it."""
    return library().get(name)
