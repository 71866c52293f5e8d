"""Read a C file for analysis, turning every kind of bad input into one clear error."""

from __future__ import annotations

import os
import re
import stat

__all__ = [
    "BOM",
    "MAX_BYTES",
    "InputError",
    "c_under_fortran_name",
    "file_kind",
    "looks_like_c",
    "other_language",
    "read_regular",
    "read_source",
    "read_source_bytes",
]

BOM = "\ufeff"
"""The UTF-8 byte order mark: dropped for analysis, written back by `annotate`."""

MAX_BYTES = 16 * 1024 * 1024
"""Files larger than this are refused rather than analysed slowly."""

_NOT_C = {
    ".py": "Python",
}
_CXX = frozenset(
    {".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".cppm", ".ixx"}
)
# A C++20 module unit: `export module k;`, `module;`, `import std;`.
_MODULE = re.compile(
    r"^\s*(?:export\s+)?(?:module\b[^;\n]*|import\s+[\w.:<\"][^;\n]*);", re.M
)
"""Read as C++ by the C++ front end (frontend/cpp_files.py names the same)."""
_CUDA = frozenset({".cu", ".cuh"})
_FORTRAN = frozenset({".f", ".f77", ".f90", ".f95", ".f03", ".f08", ".for", ".ftn"})


class InputError(Exception):
    """A file that cannot be analysed; the message is one line for the user."""


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words (`a FIFO`, `a socket`...)."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def read_regular(path: str, limit: int) -> bytes:
    """Up to `limit` bytes of a regular file; OSError, or InputError if not regular.

    The type is checked before the open (a FIFO would block `open()` until a
    writer comes) and again on the open descriptor, in case the name was
    swapped in between; O_NONBLOCK keeps that second open from blocking.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise InputError(f"{path}: is {file_kind(mode)}, not a regular file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as fh:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{path}: is {file_kind(mode)}, not a regular file")
        return fh.read(limit)


def read_source_bytes(path: str) -> bytes:
    """The raw bytes of a C file, or InputError with a one-line reason."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a C file")
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise InputError(
                f"{path}: file is too large ({size / 1e6:.1f} MB; the limit is "
                f"{MAX_BYTES // (1024 * 1024)} MB)"
            )
        return read_regular(path, MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


def read_source(path: str) -> str:
    """The text of a C file, or InputError with a one-line reason."""
    return decode_source(path, read_source_bytes(path))


def decode_source(path: str, data: bytes) -> str:
    """Decode bytes as UTF-8 C text, refusing binary content."""
    if b"\0" in data[:65536]:
        raise InputError(f"{path}: looks like a binary file, not C source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); re-encode the file as UTF-8"
        ) from None
    ext = os.path.splitext(path)[1].lower()
    if ext in _NOT_C:
        raise InputError(f"{path}: looks like {_NOT_C[ext]}, not C; accls reads C only")
    return text.removeprefix(BOM)


def other_language(path: str) -> str | None:
    """The language of a file accls cannot read (`CUDA`, by extension), else None."""
    ext = os.path.splitext(path)[1].lower()
    if ext in _CUDA:
        return "CUDA"
    return _NOT_C.get(ext)


_C_ONLY = re.compile(
    r"\brestrict\b|\b_Bool\b|\b_Complex\b|\b_Generic\b"
    # A C++ keyword declared as a name (`double *new = ..`, `int class;`), and
    # `T *p = malloc(..)` uncast (C++ converts no `void *` to another pointer).
    r"|\b(?:char|short|int|long|float|double|unsigned|signed|[A-Za-z_]\w*_t)\s*\**\s*"
    r"(?:new|delete|class|template|this|operator|namespace|typename|private|public)"
    r"\s*(?:[=;,)]|\[)"
    r"|\b(?!void\b)\w+\s*\*+\s*\w+\s*=\s*(?:malloc|calloc|realloc)\s*\("
)
_CXX_SIGNS = re.compile(
    r"::|\b(class|template|namespace|typename|public:|private:|nullptr|new|delete|"
    r"operator|constexpr|auto)\b|#\s*include\s*<[a-z_]+>"
    # A const member function, a reference parameter: `(Grid &g,`, `, double& x)`.
    r"|\)\s*const\s*(?:override\s*)?[{;]"
    r"|[(,]\s*(?:const\s+)?(?:[A-Z]\w*|int|double|float|char|long|bool)\s*&&?\s*\w+\s*[,)]"
)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _written_in_c(text: str) -> bool:
    """Whether C++-named text is C: C-only keywords, or no sign of C++ at all."""
    code = _COMMENTS.sub(" ", text)
    return bool(_C_ONLY.search(code)) or not _CXX_SIGNS.search(code)


def looks_like_c(path: str, text: str, error_bytes: int, loops: int) -> str | None:
    """A one-line warning when the file does not look like C, else None."""
    ext = os.path.splitext(path)[1].lower()
    if ext in _FORTRAN:
        return _looks_like_fortran(path, text, error_bytes, loops)
    language = "C++" if ext in _CXX else "C"
    if language == "C++" and _MODULE.search(_COMMENTS.sub(" ", text)):
        return (
            f"{path}: a C++20 module unit: what its imports declare is not read, so "
            "their calls and types are unknown; results cover the code it defines"
        )
    if language == "C++" and _written_in_c(text):
        return (
            f"{path}: looks like C with a C++ name (`restrict`, a C++ keyword as a "
            "name, `malloc` assigned uncast, or C headers and no C++ at all): it is "
            "read and compiled as C++; rename it .c to read it as C"
        )
    if text.strip() and error_bytes > 0.5 * len(text.encode("utf-8")) and loops == 0:
        return f"{path}: does not look like {language} (most of it does not parse)"
    if error_bytes and language == "C++":
        return (
            f"{path}: has syntax errors as C++ (modules, newer syntax, macros that "
            "make declarations, or C that is not C++); results cover the parts that "
            "parse"
        )
    if error_bytes:
        return f"{path}: has syntax errors; results cover the parts that parse"
    return None


def c_under_fortran_name(path: str, text: str) -> str | None:
    """An error line when a file with a Fortran name holds C (`;`, `{`, `}` ends)."""
    if os.path.splitext(path)[1].lower() not in _FORTRAN:
        return None
    code = [
        ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("!")
    ]
    c_like = sum(ln.rstrip().endswith((";", "{", "}")) for ln in code)
    if code and c_like > 0.3 * len(code):
        return f"{path}: looks like C, not Fortran (a Fortran name on C text)"
    return None


def _looks_like_fortran(
    path: str, text: str, error_bytes: int, loops: int
) -> str | None:
    """The Fortran counterpart of `looks_like_c`'s warning."""
    wrong = c_under_fortran_name(path, text)
    if wrong is not None:
        return wrong
    if text.strip() and error_bytes > 0.5 * len(text.encode("utf-8")) and loops == 0:
        return f"{path}: does not look like Fortran (most of it does not parse)"
    if error_bytes:
        return f"{path}: has syntax errors; results cover the parts that parse"
    return None
