"""The declarations a loop's names mean, where a function declares a name twice.

`Function.lookup` answers a name's first declaration. In
`{ double a[10]; ... } { double *a = p; for (..) a[i] = q[i + 1]; }` that is
the array of the first block, which overlaps nothing, while the loop writes
through the pointer of the second, which may point into `q`. Each name the
loop uses is resolved where the loop uses it: the innermost local whose scope
holds the reference, else the parameter, else none (a global). When its
references resolve to different declarations (one inside a block of the body,
one outside), a pointer among them stands for all, so nothing is taken for an
object that does not overlap.
"""

from __future__ import annotations

from bisect import bisect_right

from accls.analysis.access_paths import base_name
from accls.frontend import Function, Loop, Var

__all__ = ["loop_function"]

# (start byte, end of scope, declaration) of one name's locals, by start byte.
_Scopes = tuple[tuple[int, ...], tuple[tuple[int, int, Var], ...]]


def loop_function(fn: Function | None, loop: Loop) -> Function | None:
    """`fn`, its lookups resolved at the loop's references of names declared twice."""
    if fn is None:
        return None
    found: dict[str, set[int]] = {}
    held: dict[int, Var | None] = {}
    scopes: dict[str, _Scopes] = {}
    for ref in loop.refs:
        name = base_name(ref.name)
        if fn.declarations(name) < 2:
            continue
        if name not in scopes:
            scopes[name] = _scopes(name, fn)
        var = _in_scope(name, fn, ref.span.start_byte, scopes[name])
        held[id(var)] = var
        found.setdefault(name, set()).add(id(var))
    chosen: dict[str, Var | None] = {}
    for name, ids in found.items():
        options = [held[i] for i in ids]
        if len(options) == 1:
            chosen[name] = options[0]
            continue
        pointer = [v for v in options if v is not None and v.pointers and not v.dims]
        chosen[name] = pointer[0] if pointer else options[0]
    if all(fn.lookup(n) is v for n, v in chosen.items()):
        return fn
    return fn.resolving(chosen)


def _scopes(name: str, fn: Function) -> _Scopes:
    """The locals called `name` with where each scope starts and ends, by start."""
    spans = [
        (
            var.span.start_byte,
            var.scope_end if var.scope_end >= 0 else fn.span.end_byte,
            var,
        )
        for var in fn.locals_named(name)
        if var.span is not None
    ]
    spans.sort(key=lambda s: s[0])
    return tuple(s[0] for s in spans), tuple(spans)


def _in_scope(name: str, fn: Function, at: int, scopes: _Scopes) -> Var | None:
    """The innermost local called `name` whose scope holds byte `at`, else the param.

    Scopes nest, so the innermost holding `at` is the latest declared before it
    whose scope has not ended; a generated function that declares a name
    hundreds of times costs a search, not a scan, per reference.
    """
    starts, spans = scopes
    for k in range(bisect_right(starts, at) - 1, -1, -1):
        if at <= spans[k][1]:
            return spans[k][2]
    return next((p for p in fn.params if p.name == name), None)
