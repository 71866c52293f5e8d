"""Calls that may store a row slot of a table they are handed.

A table of rows allocated apart keeps its rows apart only while nothing stores
a slot: `hook(t)` of an unseen function, a call through a function pointer, or
`memcpy(&t[1], &t[0], ..)` may leave two slots on one row. `free` and `sizeof`
store none, and a function of the program may be known to leave rows where
they are, or `qsort` to only reorder them (`row_steady`).
"""

from __future__ import annotations

from collections.abc import Set

__all__ = ["may_repoint", "slots_kept"]

Steady = tuple[str, int]  # a function and the position of a table parameter

_KEEPING = frozenset({"free", "sizeof", "assert"})  # calls that never keep a pointer


def may_repoint(
    called: str,
    position: int,
    shadow: Set[str],
    steady: frozenset[Steady],
) -> bool:
    """Whether `called` may store a row slot of a table passed at `position`.

    `shadow` holds the caller's locals and parameters (a name there is a function
    pointer); `steady`, the calls that leave a table's rows as they are.
    """
    if called in _KEEPING:
        return False
    if called in shadow:
        return True
    return not slots_kept(steady, called, position)


def slots_kept(steady: frozenset[Steady], called: str, position: int) -> bool:
    """Whether the call stores no row slot of a table passed at `position`.

    `steady` holds `(f, ~at)` for a parameter whose rows the body hands on to
    other calls (which may keep a row, never re-point a slot).
    """
    return (called, position) in steady or (called, ~position) in steady
