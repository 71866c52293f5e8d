"""The language server's settings: one frozen tree with defaults, read from the wire.

Keys are camelCase on the wire (`initializationOptions`, section "accls" of
`workspace/configuration`) and snake_case here. A bad value falls back to its
default and is named in the problems list, which the server shows the user.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from cattrs import Converter
from cattrs.gen import make_dict_unstructure_fn, override

from accls.project import CompileDatabaseError, compile_entry
from accls.suggest import Dialect, Gpu, SuggestOptions, Target
from accls.suggest.backends.base import BackendSettings
from accls.suggest.heap_private import SUBARRAY_PRIVATE_COMPILERS
from accls.validation import CompilerSettings

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "FeedbackConfig",
    "Settings",
    "database_include_paths",
    "parse_settings",
    "to_wire",
    "wire_names",
]

T = TypeVar("T", bound="DataclassInstance")


@dataclass(frozen=True, slots=True)
class FeedbackConfig:
    """Whether applied suggestions are recorded, and where ("" = default place)."""

    enabled: bool = False
    path: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything a user can set for the language server."""

    dialect: Dialect = Dialect.OPENACC  # the programming model: OpenACC or OpenMP
    target: Target | None = None  # None: gpu for openacc, cpu for openmp
    kernels: bool = False
    gpu: Gpu = Gpu.GENERIC  # the GPU offloaded loops are tuned for
    assume_no_alias: bool = False
    reassociate_float: bool = False  # `float` totals may be reduced in any order
    backend: BackendSettings = field(default_factory=BackendSettings)
    # The compile check's compiler; its include_dirs are a document's, added at use.
    compiler: CompilerSettings = field(default_factory=CompilerSettings)
    include_paths: tuple[str, ...] = ()
    compile_commands: str = ""  # path to a compile_commands.json ("" = none)
    preprocess: bool = True  # run the build's preprocessor on the directives
    workspace_index: bool = True  # summarise the workspace's files in the background
    index_cache: str = ""  # the index's cache folder ("" = the user's cache folder)
    feedback: FeedbackConfig = field(default_factory=FeedbackConfig)
    validate: bool = True
    code_lens: bool = True  # a short verdict above each loop header

    @property
    def suggest_options(self) -> SuggestOptions:
        """The model and target the user prefers."""
        default = Target.GPU if self.dialect is Dialect.OPENACC else Target.CPU
        target = self.target or default
        sections = Path(self.compiler.cc).name.startswith(SUBARRAY_PRIVATE_COMPILERS)
        return SuggestOptions(self.dialect, target, self.kernels, self.gpu, sections)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _bool(value: Any, _: object = None) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("expected true or false")


def _text(value: Any, _: object = None) -> str:
    if isinstance(value, str):
        return value
    raise ValueError("expected a string")


def _strings(value: Any, _: object = None) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError("expected a list of strings")


def _lines(value: Any, _: object = None) -> tuple[str, ...]:
    """A list of whole strings (one string is a list of one): no shell splitting."""
    if isinstance(value, str):
        return (value,)
    return _strings(value)


def _number(value: Any, _: object = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("expected a number")
    if value < 0:
        raise ValueError("expected a number >= 0")
    return float(value)


def _whole(value: Any, _: object = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("expected a number")
    if value != int(value):
        raise ValueError("expected a whole number")
    if value < 0:
        raise ValueError("expected a number >= 0")
    return int(value)


def _choice(value: Any, kind: type[StrEnum]) -> StrEnum:
    try:
        return kind(_text(value).lower())
    except ValueError:
        raise ValueError(f"unknown value {value!r}") from None


@dataclass(frozen=True, slots=True)
class _Wire:
    """How one field travels: its wire key (None: not on the wire), its reader."""

    key: str | None
    read: Callable[[Any, Any], Any] | None = None  # None: the converter's


# Fields whose wire form is not the camelCase of their name, or that are not on
# the wire at all (the compiler's limits and cache are the server's business).
_SPECIAL: dict[type, dict[str, _Wire]] = {
    # The wire says "model" for the programming model and for the served model.
    Settings: {"dialect": _Wire("model")},
    BackendSettings: {
        "served_model": _Wire("model"),
        "candidates": _Wire("candidates", _lines),
    },
    CompilerSettings: {
        "cc": _Wire("path"),
        "include_dirs": _Wire(None),
        "timeout_s": _Wire(None),
        "memory_mb": _Wire(None),
        "cache_dir": _Wire(None),
    },
}


def _wire_fields(cls: type) -> dict[str, _Wire]:
    """Each field of `cls` and how it travels, in field order."""
    special = _SPECIAL.get(cls, {})
    return {f.name: special.get(f.name, _Wire(_camel(f.name))) for f in fields(cls)}


def wire_names(cls: type) -> dict[str, str]:
    """Field name -> wire key, for the fields of `cls` that the wire can set."""
    return {
        name: wire.key
        for name, wire in _wire_fields(cls).items()
        if wire.key is not None
    }


def _converter() -> Converter:
    """Strict leaf values from the wire (ValueError names the fault); trees to it."""
    wire = Converter()
    # By class, as cattrs' own hooks for these are: a StrEnum's is the nearer class.
    wire.register_structure_hook(bool, _bool)
    wire.register_structure_hook(str, _text)
    wire.register_structure_hook(int, _whole)
    wire.register_structure_hook(float, _number)
    wire.register_structure_hook(StrEnum, _choice)
    wire.register_structure_hook_func(lambda t: t == tuple[str, ...], _strings)
    # Inner trees first: each generated function takes its fields' hooks as it is made.
    for cls in (BackendSettings, CompilerSettings, FeedbackConfig, Settings):
        overrides: dict[str, Any] = {
            name: override(rename=spec.key, omit=spec.key is None)
            for name, spec in _wire_fields(cls).items()
        }
        wire.register_unstructure_hook(
            cls, make_dict_unstructure_fn(cls, wire, **overrides)
        )
    return wire


_WIRE = _converter()


def _nested(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Expand dotted keys (`backend.kind`) into nested objects."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            continue
        node = out
        *parents, last = key.split(".")
        for part in parents:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        if isinstance(value, Mapping) and isinstance(node.get(last), dict):
            node[last].update(_nested(value))
        elif isinstance(value, Mapping):
            node[last] = _nested(value)
        else:
            node[last] = value
    return out


def _read(cls: type[T], raw: Any, where: str, problems: list[str]) -> T:
    """`cls` with the fields named in `raw` read from it; bad ones keep their default.

    Values are reported as keyed in `raw` (camelCase or snake_case), the values
    of this level first, then its nested objects in field order.
    """
    if raw is None:
        return cls()
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: expected an object")
        return cls()
    specs = _wire_fields(cls)
    known: dict[str, str] = {}  # wire key, or the field's own name -> field
    for name, key in wire_names(cls).items():
        known[key] = name
        if key == _camel(name):
            known[name] = name
    hints = get_type_hints(cls)
    order = list(specs)
    changes: dict[str, Any] = {}
    trees: list[tuple[str, str, Any]] = []
    for key, value in raw.items():
        found = known.get(key)
        label = f"{where}{key}"
        if found is None:
            problems.append(f"{label}: unknown setting")
        elif value is None:
            continue  # an editor's way of saying "unset": keep the default
        elif is_dataclass(hints[found]):
            trees.append((found, key, value))
        else:
            read = specs[found].read or _WIRE.structure
            try:
                changes[found] = read(value, hints[found])
            except ValueError as exc:
                problems.append(f"{label}: {exc}; using the default")
    for name, key, value in sorted(trees, key=lambda tree: order.index(tree[0])):
        changes[name] = _read(hints[name], value, f"{where}{key}.", problems)
    return replace(cls(), **changes)


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from a wire object, and what was wrong with it (if anything)."""
    problems: list[str] = []
    if raw is None:
        return Settings(), problems
    if not isinstance(raw, Mapping):
        return Settings(), ["accls settings: expected an object; using the defaults"]
    settings = _read(Settings, _nested(raw), "accls.", problems)
    if not settings.compiler.cc.strip():
        problems.append("accls.compiler.path: empty; using gcc")
        settings = replace(settings, compiler=replace(settings.compiler, cc="gcc"))
    return settings, problems


def to_wire(settings: Settings) -> dict[str, Any]:
    """The wire object of `settings`: camelCase keys, enums as their values."""
    wire: dict[str, Any] = _WIRE.unstructure(settings)
    return wire


def database_include_paths(database: str, source: str) -> tuple[str, ...]:
    """The -I directories of `source`'s entry in a compile_commands.json."""
    try:
        entry = compile_entry(database, source)
    except CompileDatabaseError:
        return ()
    return entry.include_dirs if entry is not None else ()
