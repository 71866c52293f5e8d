"""The arrays a loop's carried dependences run through that each iteration can own.

A fixed-size array (see scratch_arrays) or a heap block one pointer reaches
(see heap_scratch) that every iteration fills before it reads: a private copy
per thread or gang removes the dependence.
"""

from __future__ import annotations

from accls.analysis.heap_scratch import heap_scratch
from accls.analysis.model import Dependence
from accls.analysis.nest_views import integer_macros
from accls.analysis.scratch_arrays import scratch_arrays
from accls.frontend import Loop, SourceFile

__all__ = ["private_copies"]


def private_copies(
    loop: Loop, source: SourceFile, carried: tuple[Dependence, ...], skip: set[str]
) -> dict[str, str]:
    """The arrays behind `carried` each iteration can have a private copy of.

    Each with "" (an array object) or a heap block's element count.
    """
    names = {d.array for d in carried} - skip
    if not names:
        return {}
    fn = source.function(loop.function)
    macros = integer_macros(source.macros)
    fixed = scratch_arrays(loop, fn, source, names, macros)
    return {
        **heap_scratch(loop, fn, source, names - fixed, macros),
        **dict.fromkeys(fixed, ""),
    }
