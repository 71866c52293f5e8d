"""The integer each argument of a call holds, folded where the call is written.

`minRankDoubleParallel(send, recv, numberOfTimers)` passes an enumerator of the
caller's header; `refine(MAX_LEVELS)` a macro of the caller's file; `fill(t,
n)` after `int n = 8;` a constant local of the caller. The callee's file knows
none of those names, so the workspace index records each argument's value as
its caller's file folds it (`CallRecord.values`: its macros, enumerators and
`const` globals, and the caller's written-once locals and the constants all
its callers pass, cost_locals), and the cost model's bounds from callers
(cost_callers) read the value rather than the text. An argument that folds to
no integer constant is None.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.cost_initialisers import constant_macros
from accls.analysis.cost_locals import function_constants
from accls.frontend import Function, Poly, SourceFile
from accls.frontend.exprs import expression_poly

__all__ = ["ValueScope", "argument_values"]


class ValueScope:
    """The constants of one file and of each of its functions, folded once each."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self._macros: dict[str, Poly] | None = None
        self._functions: dict[str, Mapping[str, Poly]] = {}

    def known(self, caller: Function) -> Mapping[str, Poly]:
        """The integer values names hold in `caller`: the file's and its own."""
        if self._macros is None:
            self._macros = constant_macros(self.source)
        found = self._functions.get(caller.name)
        if found is None:
            own = function_constants(self.source, caller, self._macros)
            found = {**self._macros, **own}
            self._functions[caller.name] = found
        return found


def argument_values(
    scope: ValueScope, caller: Function, args: tuple[str, ...]
) -> tuple[int | None, ...]:
    """Each argument's integer value in `caller` (None: not a constant)."""
    out: list[int | None] = []
    for text in args:
        value = expression_poly(text)
        if value is not None and not value.is_constant:
            value = value.substitute(dict(scope.known(caller)))
        out.append(value.constant if value is not None and value.is_constant else None)
    return tuple(out)
