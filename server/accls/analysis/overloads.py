"""Which of a name's several definitions a call runs: C++ overloads by argument count.

`CalcElemVolume(x, y, z)` and `CalcElemVolume(x0, .., z7)` share a name; a
call passing three arguments can only be the first. A call is resolved when
exactly one definition accepts its number of arguments (defaults and `...`
counted); otherwise every definition stays possible (their summaries' union).
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile

__all__ = ["called_definition", "definitions"]


def definitions(name: str, source: SourceFile) -> tuple[Function, ...]:
    """Every definition of `name` in the file."""
    return tuple(f for f in source.functions if f.name == name)


def _accepts(fn: Function, count: int) -> bool:
    return fn.min_args <= count and (fn.max_args is None or count <= fn.max_args)


def called_definition(
    name: str, count: int | None, source: SourceFile
) -> Function | None:
    """The one definition of an overloaded `name` a call of `count` arguments runs.

    None when `name` is defined once (or not at all), or when the count leaves
    more than one (or none) of its definitions.
    """
    found = definitions(name, source)
    if len(found) < 2 or count is None:
        return None
    viable = [f for f in found if _accepts(f, count)]
    return viable[0] if len(viable) == 1 else None
