"""A scalar the user's data directives hold on the device around a host loop.

Offloaded, the loop would read the device's copy of the scalar (inside a `data`
construct it is present, not firstprivate) and leave what it writes (a
reduction's result included) there: the data clause the suggestion adds moves
nothing for data already present. No update proves the two copies equal here,
so such a loop is refused.
"""

from __future__ import annotations

from accls.analysis import FileAnalysis
from accls.frontend import Directive, Loop
from accls.suggest.held_spans import hold_around, moved_names

__all__ = ["held_scalar"]


def held_scalar(
    analysis: FileAnalysis,
    loop: Loop,
    name: str,
    directives: list[tuple[int, Directive]],
) -> str | None:
    """Why the user's hold of the scalar `name` bars offloading `loop` (None: none)."""
    span = (loop.span.start_byte, loop.span.end_byte)
    # Directives that move the scalar itself, not an array it indexes.
    mine = [(at, d) for at, d in directives if name in moved_names(d)]
    hold = hold_around(analysis.source.data, span, name, mine)
    if hold is None:
        return None
    row = analysis.source.data.count(b"\n", 0, hold.at) + 1
    return (
        f"`{name}` is on the device from the `{hold.opening.name}` at line {row}: "
        "offloaded, the loop would use its device copy, which the host's may not "
        "match, and what it writes there would stay there"
    )
