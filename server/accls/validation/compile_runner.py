"""Run the C compiler on one unit: command line, timeout and content-hash cache."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from accls.frontend import is_cpp
from accls.frontend.fortran import module_sources
from accls.frontend.fortran_form import fixed_form, is_fortran
from accls.project import CompileDatabaseError, compile_entry, find_database
from accls.validation.compile_cache import LruCache

__all__ = [
    "CompileOutcome",
    "CompilerSettings",
    "base_command",
    "database_flags",
    "default_cache_dir",
    "run_unit",
]

CACHE_ENV = "ACCLS_CACHE_DIR"


@dataclass(frozen=True, slots=True)
class CompilerSettings:
    """Which compiler to run, with what flags, for how long, and where to cache."""

    cc: str = "gcc"
    flags: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    timeout_s: float = 10.0
    memory_mb: int = 2048  # address space of the compiler process
    cache_dir: str | None = None  # None: $ACCLS_CACHE_DIR if set, else memory only


@dataclass(frozen=True, slots=True)
class CompileOutcome:
    """What one compiler run said: success, or its diagnostics.

    None when undecided (a timeout, or out of memory); stderr then says which.
    """

    ok: bool | None
    stderr: str


def default_cache_dir() -> str:
    """$ACCLS_CACHE_DIR, else the user's cache directory's `accls/compile`."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return override
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "accls" / "compile")


def _dialect_flags(cc: str, dialects: frozenset[str]) -> list[str]:
    nvidia = Path(cc).name.startswith(("nvc", "pgcc"))
    flags = []
    if "openacc" in dialects:
        flags.append("-acc" if nvidia else "-fopenacc")
    if "openmp" in dialects:
        flags.append("-mp" if nvidia else "-fopenmp")
    return flags


def base_command(
    cc_path: str, settings: CompilerSettings, path: str, dialects: frozenset[str]
) -> tuple[str, ...]:
    """The compiler command without the unit file: lowered to assembly, warnings off.

    Not `-fsyntax-only`: gcc checks how directives nest (an `ordered` region
    outside a loop with an `ordered` clause, an `acc parallel loop` inside
    `acc parallel`, a worksharing construct inside another) only when it lowers
    the code. `-S -O0 -o /dev/null` lowers it without optimising or assembling.
    """
    folder = str(Path(path).resolve().parent) if path else os.getcwd()
    includes = [f"-I{d}" for d in (folder, *settings.include_dirs)]
    return (
        cc_path,
        "-S",
        "-O0",
        "-o",
        os.devnull,
        *_dialect_flags(settings.cc, dialects),
        "-w",
        *includes,
        *database_flags(path),
        *settings.flags,
        *_language(settings.cc, path),
    )


def _language(cc: str, path: str) -> tuple[str, ...]:
    """`-x c` (`-x c++` for C++); for Fortran, the driver's own choice by suffix.

    gcc hands a `.f90`/`.F90` file to gfortran's compiler proper; long free-form
    lines and the preprocessor (`.F90`) follow the compiler's rules for the suffix.
    """
    if is_fortran(path) and not Path(cc).name.startswith(("nvc", "pgcc", "clang")):
        return () if fixed_form(path) else ("-ffree-line-length-none",)
    return ("-x", "c++" if is_cpp(path) else "c")


def database_flags(path: str) -> tuple[str, ...]:
    """Preprocessor flags of `path`'s entry in the nearest compile_commands.json."""
    database = find_database(path) if path else None
    if database is None:
        return ()
    try:
        entry = compile_entry(database, path)
    except CompileDatabaseError:
        return ()
    return entry.preprocessor_flags() if entry is not None else ()


MEMORY_ENTRIES = 2048
"""Outcomes a long-running server keeps in memory (each holds the compiler's stderr)."""

_memory: LruCache[CompileOutcome] = LruCache(MEMORY_ENTRIES)


def _cache_key(command: tuple[str, ...], unit: str) -> str:
    digest = hashlib.sha256()
    with contextlib.suppress(OSError):
        # A rebuilt or upgraded compiler must not reuse old answers.
        stat = os.stat(command[0])
        digest.update(f"{stat.st_mtime_ns}:{stat.st_size}\0".encode())
    digest.update("\0".join(command).encode("utf-8", errors="surrogateescape"))
    digest.update(b"\0\0")
    digest.update(unit.encode("utf-8", errors="surrogateescape"))
    return digest.hexdigest()


def _read_disk(cache_dir: str, key: str) -> CompileOutcome | None:
    try:
        raw = json.loads((Path(cache_dir) / f"{key}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("ok"), bool):
        return None
    return CompileOutcome(raw["ok"], str(raw.get("stderr", "")))


def _write_disk(cache_dir: str, key: str, outcome: CompileOutcome) -> None:
    folder = Path(cache_dir)
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        # Write then rename, so a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{key}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"ok": outcome.ok, "stderr": outcome.stderr}, out)
            os.replace(tmp, folder / f"{key}.json")
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


_OUT_OF_MEMORY = ("out of memory", "virtual memory exhausted", "cannot allocate")


def _limited(command: list[str], memory_mb: int) -> list[str]:
    """`command` under an address-space limit: a macro bomb must not eat the host.

    `prlimit` sets it in the child before exec; a preexec_fn would do the same
    but is unsafe while other threads run (the language server's workers).
    """
    prlimit = shutil.which("prlimit")
    if prlimit is None or memory_mb <= 0:
        return command
    return [prlimit, f"--as={memory_mb * 1024 * 1024}", "--", *command]


def _invoke(command: list[str], timeout_s: float, memory_mb: int) -> CompileOutcome:
    env = {**os.environ, "LC_ALL": "C"}  # ASCII quotes in diagnostics
    proc = subprocess.Popen(
        _limited(command, memory_mb),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        env=env,
        start_new_session=True,
    )
    try:
        _, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        # Kill the whole group: a wrapper script's children would keep the pipes open.
        if hasattr(os, "killpg"):
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.kill()
        proc.communicate()
        return CompileOutcome(None, f"the compiler took over {timeout_s:g} s")
    if proc.returncode != 0 and any(w in stderr.lower() for w in _OUT_OF_MEMORY):
        # Undecided, like a timeout: the unit may be fine with more memory.
        return CompileOutcome(None, f"the compiler ran out of its {memory_mb} MB")
    return CompileOutcome(proc.returncode == 0, stderr)


def run_unit(
    command: tuple[str, ...], unit: str, name: str, settings: CompilerSettings
) -> tuple[CompileOutcome, str]:
    """Compile `unit` (as file `name` in a temp dir); the outcome and the file path."""
    cache_dir = settings.cache_dir or os.environ.get(CACHE_ENV) or None
    sources = _module_sources(command, unit, name)
    key = _cache_key((*command, *_stamps(sources)), unit)
    cached = _memory.get(key)
    if cached is None and cache_dir is not None:
        cached = _read_disk(cache_dir, key)
    if cached is not None:
        return cached, name
    with tempfile.TemporaryDirectory(prefix="accls-cc-") as tmp:
        file = Path(tmp) / name
        file.write_text(unit, encoding="utf-8", errors="surrogateescape")
        # gfortran writes a `.mod` file per module (into the working directory
        # unless told): the scratch folder, never the user's.
        modules = [f"-J{tmp}"] if is_fortran(name) else []
        _build_modules(command, sources, tmp, settings)
        outcome = _invoke(
            [*command, *modules, str(file)], settings.timeout_s, settings.memory_mb
        )
        # Diagnostics name the temp file; store them under the stable name.
        outcome = CompileOutcome(outcome.ok, outcome.stderr.replace(str(file), name))
    if outcome.ok is not None:  # a timeout may pass on a quieter machine
        _memory.put(key, outcome)
        if cache_dir is not None:
            _write_disk(cache_dir, key, outcome)
    return outcome, name


def _module_sources(command: tuple[str, ...], unit: str, name: str) -> tuple[str, ...]:
    """The other files whose modules a Fortran unit uses, in the -I folders."""
    if not is_fortran(name) or "use" not in unit.lower():
        return ()
    folders = [c[2:] for c in command if c.startswith("-I") and len(c) > 2]
    return module_sources(unit, folders)


def _stamps(sources: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for source in sources:
        try:
            info = os.stat(source)
        except OSError:
            continue
        out.append(f"{source}:{info.st_mtime_ns}:{info.st_size}")
    return out


def _build_modules(
    command: tuple[str, ...],
    sources: tuple[str, ...],
    tmp: str,
    settings: CompilerSettings,
) -> None:
    """The `.mod` files of the used modules, into the scratch folder (theirs first).

    A module that fails to build leaves the unit's own compile to say so.
    """
    flags = [
        c
        for c in command[1:]
        if c.startswith(("-I", "-D", "-f")) and c not in ("-fsyntax-only",)
    ]
    for source in sources:
        _invoke(
            [command[0], "-fsyntax-only", "-w", *flags, f"-J{tmp}", f"-I{tmp}", source],
            settings.timeout_s,
            settings.memory_mb,
        )
