"""Where the user's data directives hold a name on the device around some code.

A hold opens at an `enter data` (ended by the first `exit data` naming the
name after it) or a `data` construct (ended by its block); OpenMP's `target`
spellings alike. Text facts only: the directives are the function's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.frontend import Directive
from accls.suggest.held_text import block_end, names_in

__all__ = ["EXIT", "HOLDS", "Hold", "hold_around"]

EXIT = frozenset({"exit data", "target exit data"})
_DATA = frozenset({"data", "target data"})
HOLDS = frozenset({"enter data", "target enter data"}) | _DATA


@dataclass(frozen=True, slots=True)
class Hold:
    """A user's directive that holds a name on the device around some code."""

    at: int  # where the opening directive starts
    body: int  # where the code it holds begins
    until: int  # where the hold ends: the `exit data`, or the `data` block's end
    opening: Directive
    closing: Directive | None  # None: no end in this function


def hold_around(
    data: bytes,
    span: tuple[int, int],
    name: str,
    directives: list[tuple[int, Directive]],
) -> Hold | None:
    """The innermost of the user's holds of `name` around the code `span`, if any."""
    start, end = span
    holds: list[Hold] = []
    for at, directive in directives:
        if directive.name not in HOLDS or not names_in(directive, name) or at >= start:
            continue
        body = directive.span.end_byte if directive.span else at
        if directive.name in _DATA:
            block = block_end(data, body)
            if block is not None and end <= block:
                holds.append(Hold(at, body, block, directive, directive))
            continue
        exits = [
            (x, d)
            for x, d in directives
            if d.name in EXIT and names_in(d, name) and x > at
        ]
        if not exits:
            holds.append(Hold(at, body, len(data), directive, None))
            continue
        x, closing = min(exits, key=lambda e: e[0])
        if x >= start:  # an exit before the code ends this hold before it
            holds.append(Hold(at, body, x, directive, closing))
    return max(holds, key=lambda h: h.at) if holds else None
