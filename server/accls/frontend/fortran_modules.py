"""The files that define the modules a Fortran file `use`s but does not define."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from accls.frontend.fortran_form import is_fortran

__all__ = ["defined_modules", "module_files", "module_folders", "used_modules"]

# `module grid`, not `module procedure f` nor `module subroutine f` (submodules).
_MODULE = re.compile(
    r"^[ \t]*module[ \t]+(?!procedure\b|subroutine\b|function\b)"
    r"([a-z_]\w*)[ \t]*(?:!.*)?$",
    re.IGNORECASE | re.MULTILINE,
)
_USE = re.compile(
    r"^[ \t]*use\b(?:[ \t]*,[ \t]*(intrinsic|non_intrinsic)[ \t]*)?[ \t:]*([a-z_]\w*)",
    re.IGNORECASE | re.MULTILINE,
)
# The compiler's own modules: no source to find, and what they define (`acc_*`,
# `omp_*`, `c_*` names, kinds, IEEE procedures) is not the project's data.
_COMPILER_MODULES = frozenset(
    {
        "openacc",
        "openacc_kinds",
        "omp_lib",
        "omp_lib_kinds",
        "iso_c_binding",
        "iso_fortran_env",
        "ieee_arithmetic",
        "ieee_exceptions",
        "ieee_features",
    }
)
_MAX_BYTES = 4_000_000  # a bigger file is not scanned for modules
_MAX_FILES = 2_000  # files of one folder scanned at most
_MAX_PROJECT_FILES = 5_000  # files of a project tree looked at for its modules
_SKIP = frozenset({"build", "node_modules", "__pycache__"})


def used_modules(text: str) -> tuple[str, ...]:
    """The modules the text `use`s (intrinsic ones left out), lower case, in order."""
    return tuple(
        dict.fromkeys(
            m.group(2).lower()
            for m in _USE.finditer(text)
            if (m.group(1) or "").lower() != "intrinsic"
            and m.group(2).lower() not in _COMPILER_MODULES
        )
    )


def defined_modules(text: str) -> tuple[str, ...]:
    """The modules the text defines, lower case, in order."""
    return tuple(dict.fromkeys(m.group(1).lower() for m in _MODULE.finditer(text)))


@lru_cache(maxsize=512)
def _defined(path: str, mtime: int, size: int) -> tuple[str, ...]:
    """The modules one file defines (cached by its stamp)."""
    del mtime, size  # the cache key: a changed file is scanned again
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read(_MAX_BYTES)
    except OSError:
        return ()
    return defined_modules(text)


def _folder_modules(folder: str) -> dict[str, str]:
    """Module name -> the first file of `folder` (sorted) that defines it."""
    out: dict[str, str] = {}
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)[:_MAX_FILES]
    except OSError:
        return out
    for entry in entries:
        if not is_fortran(entry.name):
            continue
        try:
            info = entry.stat()
        except OSError:
            continue
        if not entry.is_file() or info.st_size > _MAX_BYTES:
            continue
        for name in _defined(entry.path, info.st_mtime_ns, info.st_size):
            out.setdefault(name, entry.path)
    return out


def module_files(
    names: Sequence[str], path: str | None, include_dirs: Sequence[str]
) -> dict[str, str]:
    """The file defining each named module: beside `path`, then in the -I folders."""
    own = str(Path(path).resolve()) if path else ""
    folders = [str(Path(path).resolve().parent)] if path else []
    folders += [str(Path(d).resolve()) for d in include_dirs]
    wanted = {n.lower() for n in names}
    found: dict[str, str] = {}
    for folder in dict.fromkeys(folders):
        if not wanted - found.keys():
            break
        for name, file in _folder_modules(folder).items():
            if name in wanted and name not in found and file != own:
                found[name] = file
    return found


def module_folders(root: str) -> tuple[str, ...]:
    """The folders under `root` with Fortran files that define modules (sorted)."""
    found: list[str] = []
    seen = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        for name in sorted(names):
            if not is_fortran(name):
                continue
            seen += 1
            if seen > _MAX_PROJECT_FILES:
                return tuple(found)
            if folder not in found and _folder_modules(folder):
                found.append(folder)
    return tuple(found)
