"""The language server's settings: one frozen tree with defaults, read from the wire.

Keys are camelCase on the wire (`initializationOptions`, section "accls" of
`workspace/configuration`) and snake_case here. A bad value falls back to its
default and is named in the problems list, which the server shows the user.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar

from accls.project import CompileDatabaseError, compile_entry
from accls.suggest import Dialect, SuggestOptions, Target
from accls.suggest.backends.base import BackendKind, BackendSettings, StructuredOutputs

__all__ = [
    "CompilerConfig",
    "FeedbackConfig",
    "Settings",
    "database_include_paths",
    "parse_settings",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class CompilerConfig:
    """The compiler of the compile check and its extra flags."""

    path: str = "gcc"
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FeedbackConfig:
    """Whether applied suggestions are recorded, and where ("" = default place)."""

    enabled: bool = False
    path: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Everything a user can set for the language server."""

    model: Dialect = Dialect.OPENACC
    target: Target | None = None  # None: gpu for openacc, cpu for openmp
    kernels: bool = False
    assume_no_alias: bool = False
    backend: BackendSettings = field(default_factory=BackendSettings)
    compiler: CompilerConfig = field(default_factory=CompilerConfig)
    include_paths: tuple[str, ...] = ()
    compile_commands: str = ""  # path to a compile_commands.json ("" = none)
    preprocess: bool = True  # run the build's preprocessor on the directives
    feedback: FeedbackConfig = field(default_factory=FeedbackConfig)
    validate: bool = True

    @property
    def suggest_options(self) -> SuggestOptions:
        """The model and target the user prefers."""
        default = Target.GPU if self.model is Dialect.OPENACC else Target.CPU
        return SuggestOptions(self.model, self.target or default, self.kernels)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


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


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("expected true or false")


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ValueError("expected a string")


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(shlex.split(value))
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError("expected a list of strings")


def _lines(value: Any) -> tuple[str, ...]:
    """A list of whole strings (one string is a list of one): no shell splitting."""
    if isinstance(value, str):
        return (value,)
    return _strings(value)


def _number(kind: type[T]) -> Callable[[Any], T]:
    def convert(value: Any) -> T:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("expected a number")
        if kind is int and value != int(value):
            raise ValueError("expected a whole number")
        if value < 0:
            raise ValueError("expected a number >= 0")
        return kind(value)  # type: ignore[call-arg]

    return convert


def _choice(kind: Callable[[str], T]) -> Callable[[Any], T]:
    def convert(value: Any) -> T:
        try:
            return kind(_text(value).lower())
        except ValueError:
            raise ValueError(f"unknown value {value!r}") from None

    return convert


_BACKEND: dict[str, Callable[[Any], Any]] = {
    "kind": _choice(BackendKind),
    "url": _text,
    "model": _text,
    "path": _text,
    "chat": _bool,
    "n": _number(int),
    "temperature": _number(float),
    "max_tokens": _number(int),
    "connect_timeout": _number(float),
    "read_timeout": _number(float),
    "retries": _number(int),
    "structured_outputs": _choice(StructuredOutputs),
    "device": _text,
    "batch_size": _number(int),
    "candidates": _lines,
    "chat_concurrency": _number(int),
    "threads": _number(int),
}

_TOP: dict[str, Callable[[Any], Any]] = {
    "model": _choice(Dialect),
    "target": _choice(Target),
    "kernels": _bool,
    "assume_no_alias": _bool,
    "include_paths": _strings,
    "compile_commands": _text,
    "preprocess": _bool,
    "validate": _bool,
}


def _fill(
    default: T,
    raw: Any,
    converters: Mapping[str, Callable[[Any], Any]],
    where: str,
    problems: list[str],
) -> T:
    """`default` with the fields named in `raw` converted; bad ones reported."""
    if raw is None:
        return default
    if not isinstance(raw, Mapping):
        problems.append(f"{where or 'settings'}: expected an object")
        return default
    changes: dict[str, Any] = {}
    names = {_camel(f.name): f.name for f in fields(default)}  # type: ignore[arg-type]
    names.update({f.name: f.name for f in fields(default)})  # type: ignore[arg-type]
    for key, value in raw.items():
        name = names.get(key)
        convert = converters.get(name) if name is not None else None
        label = f"{where}{key}"
        if convert is None:
            # Every field has a converter (a test checks it): a name without one
            # is a setting we do not know.
            problems.append(f"{label}: unknown setting")
            continue
        if value is None:
            continue  # an editor's way of saying "unset": keep the default
        try:
            changes[name] = convert(value)  # type: ignore[index]
        except ValueError as exc:
            problems.append(f"{label}: {exc}; using the default")
    return replace(default, **changes)  # type: ignore[type-var]


def parse_settings(raw: Any) -> tuple[Settings, list[str]]:
    """Settings from a wire object, and what was wrong with it (if anything)."""
    problems: list[str] = []
    if raw is None:
        return Settings(), problems
    if not isinstance(raw, Mapping):
        return Settings(), ["accls settings: expected an object; using the defaults"]
    data = _nested(raw)
    nested = {k: data.pop(k, None) for k in ("backend", "compiler", "feedback")}
    settings = _fill(Settings(), data, _TOP, "accls.", problems)
    backend = _fill(
        BackendSettings(), nested["backend"], _BACKEND, "accls.backend.", problems
    )
    compiler = _fill(
        CompilerConfig(),
        nested["compiler"],
        {"path": _text, "flags": _strings},
        "accls.compiler.",
        problems,
    )
    feedback = _fill(
        FeedbackConfig(),
        nested["feedback"],
        {"enabled": _bool, "path": _text},
        "accls.feedback.",
        problems,
    )
    if not compiler.path.strip():
        problems.append("accls.compiler.path: empty; using gcc")
        compiler = replace(compiler, path="gcc")
    return (
        replace(settings, backend=backend, compiler=compiler, feedback=feedback),
        problems,
    )


def database_include_paths(database: str, source: str) -> tuple[str, ...]:
    """The -I directories of `source`'s entry in a compile_commands.json."""
    try:
        entry = compile_entry(database, source)
    except CompileDatabaseError:
        return ()
    return entry.include_dirs if entry is not None else ()
