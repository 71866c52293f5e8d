"""The one reader of `compile_commands.json`: a source file's compiler and flags.

The CLI, the language server, the preprocessor and the compile check all take a
file's compiler, include folders and defines from here, so they agree on what
the build sees.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "MATH_FLAGS",
    "CompileDatabaseError",
    "CompileEntry",
    "compile_entry",
    "database_files",
    "find_database",
]


# Flags that let the compiler reorder floating-point sums, or forbid it again:
# the preprocessor then predefines `__ASSOCIATIVE_MATH__` or `__FAST_MATH__`,
# which tells the analysis that the build already accepts reassociated totals.
MATH_FLAGS = (
    "-ffast-math",
    "-fno-fast-math",
    "-Ofast",
    "-fassociative-math",
    "-fno-associative-math",
    "-funsafe-math-optimizations",
    "-fno-unsafe-math-optimizations",
    "-fsigned-zeros",
    "-fno-signed-zeros",
    "-ftrapping-math",
    "-fno-trapping-math",
)


class CompileDatabaseError(Exception):
    """The compile database cannot be used; the message says why, in one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompileEntry:
    """What one entry of the database says about building a source file."""

    database: str
    directory: str
    compiler: str  # the first word of the command, as written
    include_dirs: tuple[str, ...]  # absolute
    defines: tuple[str, ...]  # `NAME` or `NAME=VALUE`
    undefines: tuple[str, ...]
    std: str | None  # `c11`, `gnu99`, ...
    includes: tuple[str, ...]  # `-include FILE`, absolute
    math: tuple[str, ...] = ()  # the MATH_FLAGS it passes, in order

    def preprocessor_flags(self) -> tuple[str, ...]:
        """The flags that change what the preprocessor produces."""
        out = [f"-I{d}" for d in self.include_dirs]
        out += [f"-D{d}" for d in self.defines]
        out += [f"-U{u}" for u in self.undefines]
        out += [f"-std={self.std}"] if self.std else []
        for header in self.includes:
            out += ["-include", header]
        return (*out, *self.math)


def find_database(source: str) -> str | None:
    """The nearest `compile_commands.json` in a folder above `source`.

    Else the working folder's, when it lists `source` (a file shared by several
    builds, `../common/x.c`, has no database above it).
    """
    for folder in Path(source).resolve().parents:
        candidate = folder / "compile_commands.json"
        if candidate.is_file():
            return str(candidate)
    here = Path.cwd() / "compile_commands.json"
    try:
        listed = here.is_file() and compile_entry(str(here), source) is not None
    except CompileDatabaseError:
        return None
    return str(here) if listed else None


def _arguments(entry: dict[str, object]) -> list[str]:
    arguments = entry.get("arguments")
    if isinstance(arguments, list):
        return [str(a) for a in arguments]
    command = entry.get("command")
    if isinstance(command, str):
        try:
            return shlex.split(command)
        except ValueError as exc:
            raise CompileDatabaseError(f"an unparsable command ({exc})") from None
    raise CompileDatabaseError("an entry with neither `arguments` nor `command`")


_VALUED = ("-I", "-D", "-U", "-include", "-isystem", "-iquote")


def _entry(database: Path, entry: dict[str, object]) -> CompileEntry:
    directory = Path(str(entry.get("directory", database.parent)))
    args = _arguments(entry)
    if not args:
        raise CompileDatabaseError("an entry with an empty command")
    includes: list[str] = []
    defines: list[str] = []
    undefines: list[str] = []
    forced: list[str] = []
    std: str | None = None
    math: list[str] = []
    pending: str | None = None
    for arg in args[1:]:
        if pending is not None:
            flag, value, pending = pending, arg, None
        else:
            flag = next((f for f in _VALUED if arg.startswith(f)), arg)
            value = arg[len(flag) :]
            if flag in _VALUED and not value:
                pending = flag
                continue
        if flag in ("-I", "-isystem", "-iquote"):
            includes.append(str(directory / value))
        elif flag == "-D":
            defines.append(value)
        elif flag == "-U":
            undefines.append(value)
        elif flag == "-include":
            forced.append(str(directory / value))
        elif flag.startswith("-std="):
            std = flag.removeprefix("-std=")
        elif flag in MATH_FLAGS:
            math.append(flag)
    return CompileEntry(
        database=str(database),
        directory=str(directory),
        compiler=args[0],
        include_dirs=tuple(includes),
        defines=tuple(defines),
        undefines=tuple(undefines),
        std=std,
        includes=tuple(forced),
        math=tuple(math),
    )


def _read_entries(database: str) -> list[Any]:
    """The JSON array of `database`; CompileDatabaseError when it is not one."""
    try:
        entries = json.loads(Path(database).read_text(encoding="utf-8"))
    except OSError as exc:
        raise CompileDatabaseError(
            f"{database}: cannot read the compile database ({exc.strerror or exc})"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise CompileDatabaseError(
            f"{database}: not a valid compile database (bad JSON: {exc})"
        ) from None
    if not isinstance(entries, list):
        raise CompileDatabaseError(
            f"{database}: not a valid compile database (not a JSON array)"
        )
    return entries


def compile_entry(database: str, source: str) -> CompileEntry | None:
    """`source`'s entry in `database`; None when the database does not list it.

    Raises CompileDatabaseError when the database cannot be read or parsed.
    """
    path = Path(database)
    entries = _read_entries(database)
    wanted = Path(source).resolve()
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        directory = Path(str(entry.get("directory", path.parent)))
        if (directory / str(entry.get("file", ""))).resolve() != wanted:
            continue
        try:
            return _entry(path, entry)
        except CompileDatabaseError as exc:
            raise CompileDatabaseError(f"{database}: {exc} for {source}") from None
    return None


def database_files(database: str) -> tuple[str, ...]:
    """Every source file `database` lists, absolute, in its order, once each.

    Raises CompileDatabaseError when the database cannot be read or parsed.
    """
    path = Path(database)
    entries = _read_entries(database)
    out: dict[str, None] = {}
    for entry in entries:
        if isinstance(entry, dict) and entry.get("file"):
            directory = Path(str(entry.get("directory", path.parent)))
            out[str((directory / str(entry["file"])).resolve())] = None
    return tuple(out)


# Flags that make a library or export the program's symbols: code outside the
# project may then call any of its external functions.
_EXPORTING = ("-shared", "-fPIC", "-fpic", "-rdynamic")


def exports_symbols(database: str) -> bool:
    """Whether an entry of `database` builds code others may call into.

    A shared library (`-shared`, position-independent `-fPIC`/`-fpic`) or a
    program exporting its symbols (`-rdynamic`, `--export-dynamic`). A database
    that cannot be read says yes.
    """
    try:
        entries = _read_entries(database)
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            for arg in _arguments(entry):
                if arg in _EXPORTING or "export-dynamic" in arg:
                    return True
    except CompileDatabaseError:
        return True
    return False
