"""Which files the front end reads as C++."""

from __future__ import annotations

import os

__all__ = ["CXX_EXTENSIONS", "is_cpp"]

CXX_EXTENSIONS = frozenset(
    {".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".C", ".cppm", ".ixx"}
)
"""File extensions read as C++ (a `.h` is C++ when its compile command says so)."""


def is_cpp(path: str | None, language: str | None = None) -> bool:
    """Whether a file is read as C++: its language id, else its extension."""
    if language is not None:
        return language.lower() in ("cpp", "c++", "cxx")
    if not path:
        return False
    ext = os.path.splitext(path)[1]
    return ext in CXX_EXTENSIONS or ext.lower() in CXX_EXTENSIONS
