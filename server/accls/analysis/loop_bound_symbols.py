"""What a callee's loop bound may name and the values it may take there.

`for (a = 0; a < NP; a++)` with `#define NP 7`, or `for (k = 0; k < n; k++)`
with every call of the static function passing `n` from 1 to 40
(param_ranges): the counter stays within what those values allow, so the
elements the loop touches through a pointer parameter are known (counted_offsets).
"""

from __future__ import annotations

from accls.analysis.nest_views import integer_macros
from accls.analysis.param_ranges import parameter_ranges
from accls.frontend import Function, SourceFile

__all__ = ["bounded"]


def bounded(fn: Function, source: SourceFile) -> dict[str, tuple[int, int]]:
    """The file's integer macros and `fn`'s parameters every call bounds."""
    macros = integer_macros(source.macros)
    known = {name: (value, value) for name, value in macros.items()}
    for name, low, high in parameter_ranges(fn, source, macros):
        known[name] = (low, high)
    return known
