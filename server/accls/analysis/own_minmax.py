"""`m = max(m, a[i])` where the file itself defines `max`: not a known extreme.

C has no standard `max` or `min`. The front end takes `max`, `min`, `MAX` and
`MIN` (as it takes `fmax` and `fmin`) for the extremes the usual macros and
the library compute. When the file, or a header it parses, defines a function
of that name, the call computes what that body says (a sum, a weighted value):
`reduction(max:m)` would compute another result, so it is refused. (The C++
front end resolves its calls itself: see `frontend/cpp_minmax.py`.)
"""

from __future__ import annotations

import re

from accls.analysis.model import Obstacle, ScalarFact
from accls.analysis.reduction_refusals import refuse_reductions, stored_values
from accls.frontend import Loop, RedOp, SourceFile

__all__ = ["own_minmax"]

# The function a plain write `m = f(..)` (or `m = (f(..))`) calls.
_STORED_CALL = re.compile(r"\s*=(?!=)[\s(]*([A-Za-z_]\w*)\s*\(")


def _defined(source: SourceFile) -> frozenset[str]:
    names = {f.name for f in source.functions}
    if source.headers is not None:
        names |= {f.name for f in source.headers.functions}
    return frozenset(names)


def own_minmax(
    scalars: tuple[ScalarFact, ...],
    obstacles: tuple[Obstacle, ...],
    loop: Loop,
    source: SourceFile,
) -> tuple[tuple[ScalarFact, ...], tuple[Obstacle, ...]]:
    """The facts left, and an obstacle for each min/max through the file's function."""
    defined = _defined(source)

    def why(fact: ScalarFact) -> str:
        if fact.op not in (RedOp.MAX, RedOp.MIN):
            return ""
        called = stored_values(loop, fact.name, source.data, _STORED_CALL)
        own = next((name for name in called if name in defined), None)
        if own is None:
            return ""
        return (
            f"`{fact.name}` (line {fact.line}) is updated by `{own}()`, a "
            "function this file defines: it computes what its body says, "
            "which a `max` or `min` reduction would not"
        )

    return refuse_reductions(scalars, obstacles, why)
