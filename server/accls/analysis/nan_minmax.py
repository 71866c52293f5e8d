"""Floating-point `min`/`max` updates that take a NaN: their order decides the result.

`m = (a[i] < m) ? m : a[i]` keeps `m` only when the comparison holds; a NaN
fails every comparison, so it replaces `m`, and the next value replaces the
NaN in turn: serially the result is the maximum of what follows the last NaN
(1.0 where the values before it reach 10006). Threads that each reduce a part
and combine the parts give another value (10006). `m = (a[i] > m) ? a[i] : m`,
`if (a[i] > m) m = a[i]` and `fmax` keep `m` on a NaN: their parts combine
alike. Of `std::max` and `std::min`, which return their first argument unless
the comparison holds, the form with the new value first takes the NaN. A macro
(`MAX(m, a[i])`) is read expanded; one whose definition is not visible may do
either. Integer variables have no NaN and are left alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from accls.analysis.model import Obstacle, ScalarFact
from accls.analysis.reduction_refusals import (
    FLOATING,
    refuse_reductions,
    scalar_decl,
    stored_values,
)
from accls.frontend import Function, Loop, RedOp, SourceFile
from accls.frontend.macros import FunctionMacro, MacroTable, expand_calls

__all__ = ["nan_minmax"]

_ASSIGNED = re.compile(r"\s*=(?!=)([^;]*);")
# `_bare` has dropped the spaces: `std::max<double>(a[i],m)`, `::std::min(..)`.
_CALL = re.compile(r"(?:::)?(?:std::)?(?:max|min)(?:<[^()]*>)?\((.*)\)", re.DOTALL)
# A call of a name the front end takes for an extreme by its spelling alone.
_NAMED = re.compile(r"\s*(MAX|MIN|Max|Min)\s*\(")


def _floating(name: str, fn: Function | None, source: SourceFile, loop: Loop) -> bool:
    decl = scalar_decl(name, fn, source, loop)
    if decl is None or decl.pointers or decl.dims:
        return False
    return (source.types.scalar_base(decl.type) or decl.type) in FLOATING


def _top_level(text: str, marks: str) -> list[int]:
    """The offsets of `marks` characters outside parentheses and brackets."""
    depth, out = 0, []
    for k, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in marks:
            out.append(k)
    return out


def _bare(text: str) -> str:
    """`text` without spaces and without parentheses around the whole of it."""
    text = "".join(text.split())
    while text.startswith("(") and _closing(text) == len(text) - 1:
        text = text[1:-1]
    return text


def _closing(text: str) -> int:
    """The offset of the parenthesis that closes the one at offset 0."""
    depth = 0
    for k, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return k
    return -1


def _takes_nan(rhs: str, name: str) -> bool:
    """True when the update `name = rhs` stores the new value on a failed test."""
    rhs = _bare(rhs)
    marks = _top_level(rhs, "?:")
    if len(marks) == 2 and rhs[marks[0]] == "?" and rhs[marks[1]] == ":":
        return _bare(rhs[marks[0] + 1 : marks[1]]) == name
    call = _CALL.fullmatch(rhs)
    if call is not None:
        args = call.group(1)
        commas = _top_level(args, ",")
        return len(commas) == 1 and _bare(args[commas[0] + 1 :]) == name
    return False


def _unseen_macro(rhs: str, table: MacroTable, source: SourceFile) -> str:
    """`MAX` when `rhs` calls it and neither a macro nor a function defines it."""
    named = _NAMED.match(rhs)
    if (
        source.language == "fortran"
        or named is None
        or named.group(1) in table.functions
    ):
        return ""
    if source.function(named.group(1)) is not None:
        return ""  # a function's body decides (see reduction_refusals)
    return named.group(1)


@lru_cache(maxsize=8)
def _macro_table(macros: tuple[tuple[str, tuple[str, ...], str], ...]) -> MacroTable:
    """The file's function-like macros, for expansion (one table per file)."""
    return MacroTable(
        functions={name: FunctionMacro(params, body) for name, params, body in macros}
    )


def nan_minmax(
    scalars: tuple[ScalarFact, ...],
    obstacles: tuple[Obstacle, ...],
    loop: Loop,
    fn: Function | None,
    source: SourceFile,
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """The facts left, and an obstacle for each floating min/max that takes a NaN."""

    def why(fact: ScalarFact) -> str:
        if fact.op not in (RedOp.MAX, RedOp.MIN) or not _floating(
            fact.name, fn, source, loop
        ):
            return ""
        table = _macro_table(source.function_macros)
        stored = stored_values(loop, fact.name, source.data, _ASSIGNED)
        unseen = next(
            (m for rhs in stored if (m := _unseen_macro(rhs, table, source))), ""
        )
        if unseen:
            return (
                f"`{fact.name}` (line {fact.line}) keeps an extreme through "
                f"`{unseen}`, whose definition is not visible: if it takes the "
                "new value whenever the comparison fails, as for a NaN, the "
                "result depends on the order"
            )
        if not any(_takes_nan(expand_calls(rhs, table), fact.name) for rhs in stored):
            return ""
        return (
            f"`{fact.name}` (line {fact.line}) takes the new value "
            "whenever the comparison fails, as it does for a NaN, which the "
            "next value then replaces: the result depends on the order, so "
            "threads' partial values would combine to another one"
        )

    return refuse_reductions(scalars, obstacles, why)
