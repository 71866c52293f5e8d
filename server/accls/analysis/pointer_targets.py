"""The functions of the file a call through a function pointer parameter reaches.

`midpoint_step(f, y, h)` with `static void midpoint_step(rhs_fn f, ...)` calling
`f(y, k1)`: when every call of `midpoint_step` in the file passes a function of
the file for `f` (or a parameter of its own caller that every call of that one
binds so, a few levels up), `f(...)` calls one of those functions. A function
whose name the file uses other than in calls, declarations and its definition
(its address taken: callers elsewhere) binds nothing, nor does a parameter the
function assigns.
"""

from __future__ import annotations

import re

from accls.frontend import Function, SourceFile

__all__ = ["pointer_targets"]

_DEPTH = 4


def _params_index(fn: Function, name: str) -> int | None:
    names = [p.name for p in fn.params]
    if name not in names or any(r.name == name and r.is_write for r in fn.refs):
        return None
    return names.index(name)


def _only_called(fn: Function, source: SourceFile) -> bool:
    """True when every use of the function's name is a call or a declaration."""
    name = re.escape(fn.name.encode())
    uses = re.finditer(rb"\b" + name + rb"\b(?!\s*\()", source.data)
    return next(uses, None) is None


def pointer_targets(
    fn: Function, name: str, source: SourceFile, depth: int = _DEPTH
) -> tuple[str, ...]:
    """The file's functions `name(...)` in `fn` may call; () when not known."""
    k = _params_index(fn, name)
    if k is None or depth <= 0 or not fn.static or not _only_called(fn, source):
        return ()
    found: list[str] = []
    sites = 0
    for caller in source.functions:
        for call in caller.call_sites:
            if call.name != fn.name:
                continue
            sites += 1
            if len(call.args) <= k:
                return ()
            arg = call.args[k].strip().lstrip("&").strip()
            if source.function(arg) is not None:
                found.append(arg)
                continue
            deeper = pointer_targets(caller, arg, source, depth - 1)
            if not deeper:
                return ()
            found.extend(deeper)
    return tuple(dict.fromkeys(found)) if sites else ()
