"""Sizes every caller bounds: the largest constant each call passes for a parameter.

`void add_real(double *s, double *r, int count) { for (i = 0; i < count; i++) r[i]
= s[i]; }` called as `add_real(v, sum, 4)` in one file and `add_real(e, sum, 2)` in
another runs at most four iterations, whatever the loop looks like on its own. When
the file, or the workspace index of the whole program, shows every call of the
function (`call_site_lists`), and every call passes an integer constant for a
parameter the body never writes (a literal, or a macro, enumerator or constant of
the caller's file, which the index folds there: call_values), the cost model
counts the largest of them: an upper bound, so a loop it calls small is small at
every call. The constants the file fixes itself come first (cost_locals: one
constant all callers pass, locals, const globals); a call whose argument is no
constant leaves the parameter open.
"""

from __future__ import annotations

from collections.abc import Mapping

from accls.analysis.analyze import FileAnalysis
from accls.analysis.call_site_lists import CallSiteLists, callee_of
from accls.analysis.cost_locals import function_constants
from accls.frontend import Function, Poly
from accls.frontend.exprs import expression_poly

__all__ = ["fixed_sizes"]


def _plain(fn: Function, name: str) -> bool:
    """True when parameter `name` is a scalar the body never writes nor lends."""
    param = fn.lookup(name)
    if param is None or param.dims or param.pointers:
        return False
    return not any(r.is_write or r.escapes for r in fn.refs if r.name == name)


def _bounds(
    analysis: FileAnalysis, fn: Function, known: Mapping[str, Poly]
) -> dict[str, Poly]:
    """The largest constant every call of `fn` passes, per parameter it never writes."""
    program = analysis.program
    calls = program.calls if program is not None else None
    sites = CallSiteLists(analysis.source, calls).only_called(callee_of(fn))
    if not sites:
        return {}
    largest: dict[str, int] = {}
    for i, param in enumerate(fn.params):
        if not _plain(fn, param.name):
            continue
        for site in sites:
            if site.count() != len(fn.params):
                return {}
            if site.record is not None:
                # Folded in the caller's file: its macros and enumerators too.
                values = site.record.values
                found = values[i] if i < len(values) else None
                value = Poly.const(found) if found is not None else None
            else:
                assert site.call is not None
                value = expression_poly(site.call.args[i])
                value = value.substitute(dict(known)) if value is not None else None
            if value is None or not value.is_constant or value.constant < 0:
                largest.pop(param.name, None)
                break
            largest[param.name] = max(largest.get(param.name, 0), value.constant)
    return {name: Poly.const(n) for name, n in largest.items()}


def fixed_sizes(
    analysis: FileAnalysis, fn: Function, known: Mapping[str, Poly]
) -> dict[str, Poly]:
    """The sizes `fn` fixes (cost_locals), then the bounds all its callers set."""
    fixed = function_constants(analysis.source, fn, known)
    bounds = _bounds(analysis, fn, {**known, **fixed})
    return {**bounds, **fixed}
