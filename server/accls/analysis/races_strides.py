"""Inner loops of a literal stride whose values are the same in every iteration.

`for (j = 1 + color; j < M; j += 2)` inside a parallel `i` loop visits the same
`j` in every iteration of `i`: the exact dependence test, which models the
stride, may then take `j` as steady, as it does for a unit step. A start that
reads a loop variable of the nest (`1 + (i + color) % 2`, a checkerboard) or is
not a plain sum moves the stride class from one iteration to the next: not so.
"""

from __future__ import annotations

import re

from accls.frontend import Loop

__all__ = ["fixed_stride_class"]

_NAME = re.compile(r"[A-Za-z_]\w*")
_SUM = re.compile(r"[\w\s+*-]+")


def fixed_stride_class(inner: Loop, loop: Loop) -> bool:
    """A literal step from a start the same in every iteration of `loop`."""
    text = inner.lower_text
    loop_vars = {x.var for x in loop.walk() if x.var}
    return (
        inner.step not in (None, 0)
        and inner.lower is not None
        and _SUM.fullmatch(text) is not None
        and not set(_NAME.findall(text)) & loop_vars
    )
