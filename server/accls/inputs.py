"""Read a C file for analysis, turning every kind of bad input into one clear error."""

from __future__ import annotations

import os

__all__ = ["MAX_BYTES", "InputError", "looks_like_c", "read_source"]

MAX_BYTES = 16 * 1024 * 1024
"""Files larger than this are refused rather than analysed slowly."""

_NOT_C = {
    ".f": "Fortran",
    ".f77": "Fortran",
    ".f90": "Fortran",
    ".f95": "Fortran",
    ".f03": "Fortran",
    ".f08": "Fortran",
    ".for": "Fortran",
    ".py": "Python",
}
_CXX = frozenset({".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".cu"})


class InputError(Exception):
    """A file that cannot be analysed; the message is one line for the user."""


def read_source(path: str) -> str:
    """The text of a C file, or InputError with a one-line reason."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a C file")
    try:
        size = os.path.getsize(path)
        if size > MAX_BYTES:
            raise InputError(
                f"{path}: file is too large ({size / 1e6:.1f} MB; the limit is "
                f"{MAX_BYTES // (1024 * 1024)} MB)"
            )
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return decode_source(path, data)


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
    return text.removeprefix("\ufeff")


def looks_like_c(path: str, text: str, error_bytes: int, loops: int) -> str | None:
    """A one-line warning when the file does not look like C, else None."""
    ext = os.path.splitext(path)[1].lower()
    if ext in _CXX:
        return f"{path}: C++ is read as C; results cover only what parses as C"
    if text.strip() and error_bytes > 0.5 * len(text.encode("utf-8")) and loops == 0:
        return f"{path}: does not look like C (most of it does not parse)"
    if error_bytes:
        return f"{path}: has syntax errors; results cover the parts that parse"
    return None
