"""The floating-point environment is each thread's own.

`fesetround(FE_UPWARD)` sets the rounding mode of the thread that calls it,
and `fetestexcept(FE_OVERFLOW)` reads that thread's exception flags (C11 7.6;
OpenMP's worker threads keep their own, and a pool made before the call never
sees it). In a program that sets or tests the environment, a loop that may
compute in floating point rounds differently, or raises flags the test never
sees, once its iterations run on other threads: serially `2.06e-10` and the
overflow reported, at 4 threads `1.28e-11` and none. Such a loop stays serial
unless it surely computes in integers only: no call, no floating literal, and
every name it uses declared of an integer type (or a macro without a floating
literal). The program is the file, and
the other files' calls the index recorded.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from accls.analysis.access_paths import base_name
from accls.analysis.integer_kinds import declaration, signedness
from accls.analysis.model import Obstacle, ObstacleCode
from accls.frontend import Loop, SourceFile, Var

if TYPE_CHECKING:
    from accls.analysis.program import ProgramSummaries

__all__ = ["fenv_obstacle"]

# Calls that set the calling thread's rounding mode, exception flags, traps or
# denormal handling, or read its flags: <fenv.h>, glibc's, and x86's MXCSR.
_FENV = (
    "fesetround", "fesetenv", "feupdateenv", "feholdexcept", "fesetexceptflag",
    "fesetexcept", "fetestexcept", "fegetexceptflag", "fetestexceptflag",
    "fegetenv", "feenableexcept", "fedisableexcept", "_mm_setcsr", "_mm_getcsr",
    "_MM_SET_ROUNDING_MODE", "_MM_SET_FLUSH_ZERO_MODE",
    "_MM_SET_DENORMALS_ZERO_MODE", "_MM_GET_EXCEPTION_STATE",
)  # fmt: skip
_CALLED = re.compile(r"\b(" + "|".join(_FENV) + r")\s*\(")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_]\w*")
# A floating literal: `1.`, `.5`, `1e-3`, `0x1p4`, with or without a suffix.
_FLOATING = re.compile(
    r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+[eE][-+]?\d+|0[xX][\da-fA-F.]+[pP][-+]?\d+)"
)


def _environment_call(source: SourceFile, program: ProgramSummaries | None) -> str:
    """The first call of the program that sets or tests the environment; "" if none."""
    found = _text_call(source.text)
    if found:
        return found
    calls = program.calls if program is not None else None
    if calls is not None:
        return next((name for name in _FENV if calls.calls_of(name)), "")
    return ""


@lru_cache(maxsize=8)
def _text_call(text: str) -> str:
    """The first environment call a text spells, outside comments; "" if none."""
    if "fe" not in text and "_mm_" not in text and "_MM_" not in text:
        return ""
    found = _CALLED.search(_COMMENT.sub(" ", text))
    return found.group(1) if found is not None else ""


def _integer_only(loop: Loop, source: SourceFile) -> bool:
    """True when the loop surely computes in integers: no call, no floating literal."""
    if loop.calls:
        return False
    code = source.data[loop.span.start_byte : loop.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    code = _COMMENT.sub(" ", code)
    # A floating literal, or a type named in the loop (a cast, a declaration):
    # `(double)k[i] / 3` rounds. A type the file defines counts unless an integer.
    named = set(_WORD.findall(code))
    floating = {"float", "double", "_Float16", "_Float32", "_Float64", "_Float128"}
    typedefs = {name: base for name, base, _ in source.types.typedefs}
    if _FLOATING.search(code) or named & floating:
        return False
    if any(
        name in typedefs and not signedness(Var(name=name, type=name), source.types)
        for name in named
    ):
        return False
    fn = source.function(loop.function) if loop.function else None
    mine = (*fn.params, *fn.locals) if fn is not None else ()
    macros = dict(source.macros)
    for name in {base_name(ref.name) for ref in loop.refs}:
        # Every declaration of the name the function makes (two loops' `i`), or
        # the file's one.
        found = [v for v in mine if v.name == name]
        if not found and (only := declaration(name, fn, source)) is not None:
            found = [only]
        if not found and name in macros:
            if _FLOATING.search(macros[name]):
                return False
            continue  # a constant spelled in integers (`N`)
        if not found or not all(signedness(v, source.types) for v in found):
            return False
    return True


def fenv_obstacle(
    loop: Loop, source: SourceFile, program: ProgramSummaries | None = None
) -> Obstacle | None:
    """Why a loop of a program that sets or tests the environment stays serial."""
    if loop.fortran:
        return None
    name = _environment_call(source, program)
    if not name or _integer_only(loop, source):
        return None
    return Obstacle(
        code=ObstacleCode.CONDITIONAL_LAST,
        line=loop.span.line,
        variable="the floating-point environment",
        message=f"the program calls `{name}()`: the floating-point environment "
        "(rounding mode, exception flags) is each thread's own, so iterations on "
        "other threads may round differently or raise flags it never sees",
    )
