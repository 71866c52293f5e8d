"""The files of a project: its sources (the database's, else the folder's), headers."""

from __future__ import annotations

import os
from pathlib import Path

from accls.files import InputError, read_source
from accls.frontend import HeaderContext
from accls.project.compile_db import CompileDatabaseError, database_files

__all__ = ["folder_exports", "header_texts", "project_files"]

# C and C++ translation units (a C++ file's stores count as much as a C file's), and
# Fortran files: their procedures are called across files through `use`.
_SUFFIXES = (
    *(".c", ".cc", ".cpp", ".cxx", ".c++", ".C"),
    *(".f90", ".F90", ".f95", ".f03", ".f08", ".f", ".F"),
)
_SKIP = {".git", "build", "node_modules", "__pycache__"}
# Sources of languages the index does not read that may call C functions (CUDA,
# assembly, Objective-C, Cython, SWIG, Go, Rust, Zig), and build files that
# may make a shared library.
_FOREIGN = (
    *(".cu", ".cuh", ".S", ".s", ".asm", ".m", ".mm"),
    *(".pyx", ".i", ".go", ".rs", ".zig"),
)
_BUILDS = ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt", "meson.build")
_SHARED = ("-shared", "-fPIC", "-fpic", "SHARED", "shared_library", "-rdynamic")


def project_files(
    root: str, database: str | None = None, limit: int = 5000
) -> tuple[str, ...]:
    """The C and C++ files of a project: the `database`'s, else those under `root`."""
    if database is not None:
        try:
            return database_files(database)[:limit]
        except CompileDatabaseError:
            pass  # a broken database: fall back on the folder
    out: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        for name in sorted(names):
            if name.endswith(_SUFFIXES):
                out.append(str(Path(folder, name).resolve()))
                if len(out) >= limit:
                    return tuple(out)
    return tuple(out)


def header_texts(context: HeaderContext | None, limit: int) -> tuple[str, ...]:
    """The text of the project headers a file's build `context` read (at most `limit`).

    A header that cannot be read gives "".
    """
    out: list[str] = []
    for header in context.headers[:limit] if context is not None else ():
        try:
            out.append(read_source(header))
        except InputError:
            out.append("")
    return tuple(out)


def folder_exports(root: str, limit: int = 5000) -> bool:
    """Whether code the folder's C files do not see may call their functions.

    A source of another language the index does not read (CUDA, assembly, Go,
    ...), or a build file that mentions a shared library (`-shared`, `-fPIC`,
    CMake's `SHARED`, Meson's `shared_library`). Past `limit` files, yes.
    """
    seen = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
        for name in names:
            seen += 1
            if seen > limit or name.endswith(_FOREIGN):
                return True
            if name in _BUILDS:
                try:
                    text = read_source(str(Path(folder, name)))
                except InputError:
                    return True
                if any(flag in text for flag in _SHARED):
                    return True
    return False
