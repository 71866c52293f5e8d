"""The variables of one iteration an offloaded loop may hand its callees."""

from __future__ import annotations

from accls.analysis import FileAnalysis, ScalarClass
from accls.frontend import Loop, Var

__all__ = ["iteration_locals"]


def iteration_locals(loop: Loop, analysis: FileAnalysis) -> dict[str, Var]:
    """The body's locals, and what the loop privatizes, by name.

    A scalar it privatizes (an out-parameter `&fx` its callee stores first) and
    an array object it makes `private` (a scratch array a callee fills): each
    iteration's copy lives on the device like a body local.
    """
    body = {v.name: v for v in loop.locals}
    fn = analysis.source.function(loop.function)
    if fn is None:
        return body
    facts = analysis.of(loop)
    for fact in facts.scalars:
        var = fn.lookup(fact.name)
        if fact.cls is ScalarClass.PRIVATE and var is not None and not var.is_array:
            body.setdefault(fact.name, var)
    for name in facts.private_arrays:
        var = fn.lookup(name)
        if var is not None and var.dims and not var.pointers:
            body.setdefault(name, var)
    return body
