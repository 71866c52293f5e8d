"""The header functions an offloaded loop calls: compiled with the file, never edited.

A header's `static inline` function is part of the translation unit, but accls
writes only the user's file, so it cannot put `#pragma acc routine seq` or
`declare target` above its definition (gcc refuses a named `acc routine` after
the definition). OpenMP needs no mark there: a function of the translation unit
that a target region (or a `declare target` function) calls is `declare target`
implicitly (OpenMP 5.0; gcc compiles it for the device, checked with gcc 12).
OpenACC gcc does not: the device has the function where the compiler inlines
the call (gcc from -O1) or marks it implicitly (nvc), and the header needs the
mark otherwise. Either way the loop keeps its pragma and the reasons say so.
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile
from accls.suggest.pragma import Dialect

__all__ = ["header_function", "header_routine_reason"]


def header_function(source: SourceFile, name: str) -> Function | None:
    """The function `name` of an included header, when this file does not define it."""
    if source.headers is None or source.function(name) is not None:
        return None
    return source.headers.function(name)


def header_routine_reason(source: SourceFile, fn: Function, dialect: Dialect) -> str:
    """What the device needs of the header function `fn`, which has no mark."""
    headers = source.headers
    place = headers.place(fn.span.line) if headers is not None else fn.name
    name = f"`{fn.name}()` ({place})"
    if dialect is Dialect.OPENMP:
        return (
            f"{name}, in a header accls does not edit, runs on the device: the "
            "compiler makes it `declare target` implicitly, as the loop calls it"
        )
    return (
        f"{name} is in a header accls does not edit and has no `#pragma acc "
        "routine seq`: the device gets it where the compiler inlines the call "
        "(gcc from -O1) or marks it itself (nvc); mark it in the header for a "
        "build that does neither"
    )
