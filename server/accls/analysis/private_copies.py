"""The arrays a loop's carried dependences run through that each iteration can own.

A fixed-size array (see scratch_arrays) or a heap block one pointer reaches
(see heap_scratch) that every iteration fills before it reads: a private copy
per thread or gang removes the dependence. So does one a callee fills before
the iteration reads it (callee_fills), whose writes no dependence records.
"""

from __future__ import annotations

from accls.analysis.callee_fills import filled_arrays
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
    macros = integer_macros(source.macros)
    filled = filled_arrays(loop, source, macros) - skip if loop.calls else set()
    if not names and not filled:
        return {}
    fn = source.function(loop.function)
    fixed = scratch_arrays(loop, fn, source, names, macros) | filled
    return {
        **heap_scratch(loop, fn, source, names - fixed, macros),
        **dict.fromkeys(fixed, ""),
    }
