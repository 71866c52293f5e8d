"""A signed loop variable compared with an unsigned bound: the comparison is unsigned.

`for (int i = -5; i < n; i++)` with `unsigned n` (or `size_t`, `sizeof`, `1000u`,
`v.size()`) converts `i` to unsigned before comparing: `-5` becomes a huge
number and the serial loop runs no iteration, where gcc's parallel loop, which
counts from -5 to n in the variable's type, runs them all. Only values that are
never negative compare alike both ways: a rising loop must start at a known
number >= 0 (or at an unsigned variable), a falling one must stop at one. An
unsigned type narrower than the variable's (`unsigned short`, or `unsigned`
against a `long`) is converted to the variable's type instead, and is harmless.
"""

from __future__ import annotations

import re

from accls.analysis.model import Obstacle, ObstacleCode
from accls.analysis.narrow_counters import loop_number, past_value
from accls.analysis.nest_views import integer_macros
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["unsigned_bound_obstacle", "unsigned_width"]

_WORD = re.compile(r"[A-Za-z_][\w:]*")
_LITERAL = re.compile(r"\b(?:0[xX][0-9a-fA-F]+|\d+)([uUlL]+)\b")
_SIZE_CALL = re.compile(r"\bsizeof\b|\bstrlen\s*\(|\bsize\s*\(\s*\)|\bstd::size\s*\(")
_WIDE = frozenset({"size_t", "uint64_t", "uintptr_t"})
_SIGNED_WIDE = frozenset({"int64_t", "ptrdiff_t", "intptr_t", "ssize_t"})


def _base(type_: str, source: SourceFile) -> str:
    return (source.types.scalar_base(type_) or type_).removeprefix("std::")


def unsigned_width(type_: str) -> int:
    """64 or 32 for an unsigned type that `int` converts to, else 0."""
    words = set(type_.split())
    if type_ in _WIDE:
        return 64
    if type_ == "uint32_t":
        return 32
    if "unsigned" not in words or words & {"char", "short"}:
        return 0  # signed, or promoted to `int` before the comparison
    return 64 if "long" in words else 32


def _signed_width(type_: str) -> int:
    """64 or 32 for a signed integer type, else 0."""
    words = set(type_.split())
    if type_ in _SIGNED_WIDE:
        return 64
    if "unsigned" in words or words & {"float", "double", "_Bool", "bool"}:
        return 0
    if words & {"int", "long", "short", "char", "signed"} or type_ in (
        "int8_t",
        "int16_t",
        "int32_t",
    ):
        return 64 if "long" in words else 32
    return 0


def _decl(name: str, fn: Function | None, source: SourceFile) -> Var | None:
    found = fn.lookup(name) if fn is not None else None
    return found or next((g for g in source.globals if g.name == name), None)


def _bound_width(text: str, fn: Function | None, source: SourceFile) -> int:
    """The width of the widest unsigned operand of the bound's text, 0 if none."""
    width = 64 if _SIZE_CALL.search(text) else 0
    for match in _LITERAL.finditer(text):
        suffix = match.group(1).lower()
        if "u" in suffix:
            width = max(width, 64 if "l" in suffix else 32)
    for word in _WORD.findall(text):
        decl = _decl(word, fn, source)
        if decl is not None and not decl.pointers and not decl.dims:
            width = max(width, unsigned_width(_base(decl.type, source)))
    return width


def _never_negative(loop: Loop, fn: Function | None, source: SourceFile) -> bool:
    constants = integer_macros(source.macros)
    step = loop.step
    if not step:
        return False
    if step > 0:
        first = loop_number(loop.lower, constants)
        if first is not None:
            return first >= 0
        decl = _decl(loop.lower_text, fn, source)
        return decl is not None and unsigned_width(_base(decl.type, source)) > 0
    bound = loop_number(loop.upper, constants)
    past = None if bound is None else past_value(bound, step, loop.cond_op)
    return past is not None and past >= 0


def unsigned_bound_obstacle(
    loop: Loop, decl: Var | None, fn: Function | None, source: SourceFile
) -> Obstacle | None:
    """Why a signed variable compared unsigned keeps the loop serial, or None."""
    if decl is None or decl.pointers or decl.dims or loop.fortran:
        return None
    if loop.range_for is not None:
        return None
    own = _signed_width(_base(decl.type, source))
    if not own or _bound_width(loop.upper_text, fn, source) < own:
        return None
    if _never_negative(loop, fn, source):
        return None
    return Obstacle(
        code=ObstacleCode.SHAPE,
        line=loop.line,
        variable=loop.var,
        message=f"the signed loop variable `{loop.var}` is compared with "
        f"`{loop.upper_text}`, which is unsigned: the comparison converts a "
        "negative value to a huge one, so the serial loop stops (or never starts) "
        "where a parallel loop, counting in the variable's type, goes on",
    )
