"""What the checks of inexact reductions share.

Each of them (`bool_reductions`, `converted_sums`, `nan_minmax`) reads a
reduction variable's declaration and the values the loop stores in it, and
turns the reductions it refuses into scalar obstacles.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accls.analysis.model import Obstacle, ObstacleCode, ScalarClass, ScalarFact
from accls.frontend import Function, Loop, SourceFile, Var

__all__ = ["FLOATING", "refuse_reductions", "scalar_decl", "stored_values"]

FLOATING = frozenset({"float", "double", "long double", "_Float32", "_Float64"})


def scalar_decl(
    name: str, fn: Function | None, source: SourceFile, loop: Loop | None = None
) -> Var | None:
    """The declaration `name` refers to in `fn`: a local or parameter, else a global.

    With `loop`, the one in scope around the loop: a function may declare a
    total in several blocks (`double s` in one, `float s` in the next), and
    its first declaration is not the one each loop updates.
    """
    found = fn.lookup(name) if fn is not None else None
    if (
        found is not None
        and fn is not None
        and loop is not None
        and (fn.declarations(name) > 1)
    ):
        # None in scope (extents not known): the first, as without `loop`.
        found = _around(name, fn, loop) or found
    return found or next((g for g in source.globals if g.name == name), None)


def _encloses(var: Var, loop: Loop) -> bool:
    """Whether `var`'s scope holds the whole loop (unknown extents hold it)."""
    begins = var.span is None or var.span.start_byte < loop.span.start_byte
    return begins and (var.scope_end < 0 or var.scope_end >= loop.span.end_byte)


def _around(name: str, fn: Function, loop: Loop) -> Var | None:
    """The innermost declaration of `name` whose scope holds the loop."""
    named = (v for v in (*fn.locals, *fn.params) if v.name == name)
    held = [v for v in named if _encloses(v, loop)]
    return max(held, key=lambda v: v.span.start_byte if v.span else -1, default=None)


def stored_values(
    loop: Loop, name: str, data: bytes, store: re.Pattern[str]
) -> list[str]:
    """What `store` (matched after each plain write of `name`) captures, in order."""
    out = []
    for ref in loop.refs:
        if ref.name != name or not ref.is_write or ref.subscripts:
            continue
        tail = data[ref.span.end_byte : ref.span.end_byte + 400].decode(
            "utf-8", "replace"
        )
        found = store.match(tail)
        if found is not None:
            out.append(found.group(1))
    return out


def refuse_reductions(
    scalars: tuple[ScalarFact, ...],
    obstacles: tuple[Obstacle, ...],
    why: Callable[[ScalarFact], str],
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """The facts left, and the obstacles with one for each reduction `why` refuses.

    `why` says why a reduction is not one threads could split, or "" when it is.
    """
    kept: list[ScalarFact] = []
    refused: list[Obstacle] = []
    for fact in scalars:
        message = why(fact) if fact.cls is ScalarClass.REDUCTION else ""
        if message:
            refused.append(
                Obstacle(
                    code=ObstacleCode.SCALAR_CARRIED,
                    line=fact.line,
                    variable=fact.name,
                    message=message,
                )
            )
            continue
        kept.append(fact)
    return tuple(kept), (*obstacles, *refused)
