"""What `verify` is asked to do, and the checks that turn bad input into one line."""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass

from accls.files import InputError, file_kind, read_source

__all__ = [
    "MAX_MEMORY_MB",
    "MAX_SECONDS",
    "MAX_THREADS",
    "VerifyInputError",
    "VerifySettings",
    "check_inputs",
]

MAX_THREADS = 1024
MAX_SECONDS = 86_400  # a day, for CPU seconds and the wall clock
MAX_MEMORY_MB = 1 << 24  # 16 TiB: past this RLIMIT_AS stops meaning anything


class VerifyInputError(InputError):
    """Bad input to `verify` (missing file, bad setting); the message is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifySettings:
    """How to build, run and compare; the defaults suit a small test program."""

    threads: tuple[int, ...] = (1, 2, 4)
    tolerance: float = 1e-9
    cpu_s: int = 10
    memory_mb: int = 2048
    timeout_s: float = 30.0
    cc: str = "gcc"
    cflags: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    stdin_path: str | None = None
    data: tuple[str, ...] = ()
    sandbox: bool = True  # False runs the program unconfined if no sandbox works


def check_inputs(path: str, settings: VerifySettings) -> str:
    """The source text; VerifyInputError on any bad path or setting."""
    try:
        text = read_source(path)
    except InputError as exc:
        raise VerifyInputError(str(exc)) from None
    if not settings.threads or any(not 1 <= t <= MAX_THREADS for t in settings.threads):
        raise VerifyInputError(f"threads: give thread counts from 1 to {MAX_THREADS}")
    if settings.tolerance < 0 or not math.isfinite(settings.tolerance):
        raise VerifyInputError("tolerance: must be a finite number >= 0")
    for name, value, top in (
        ("cpu-seconds", settings.cpu_s, MAX_SECONDS),
        ("memory-mb", settings.memory_mb, MAX_MEMORY_MB),
        ("timeout", settings.timeout_s, MAX_SECONDS),
    ):
        if not (math.isfinite(value) and 0 < value <= top):
            raise VerifyInputError(
                f"{name}: must be a number above 0 and at most {top}"
            )
    if settings.stdin_path is not None:
        _check_regular(settings.stdin_path, "stdin file")
    names = [os.path.basename(os.path.normpath(d)) for d in settings.data]
    for item in settings.data:
        _check_data(item)
    if len(set(names)) != len(names):
        raise VerifyInputError("data: two data files share a name")
    return text


def _check_regular(path: str, what: str) -> None:
    """VerifyInputError unless `path` is a regular file (a FIFO would block)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise VerifyInputError(f"{path}: {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise VerifyInputError(f"{path}: {what} is {file_kind(mode)}")


def _check_data(item: str) -> None:
    """A data file, or a folder of regular files, folders and links."""
    if not os.path.isdir(item):
        _check_regular(item, "data file")
        return
    for folder, dirs, files in os.walk(item):
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                raise VerifyInputError(f"{path}: data file is {file_kind(mode)}")
