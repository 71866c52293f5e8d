"""Whether a host call may read or write an array: its callee's effects through it."""

from __future__ import annotations

import re

from accls.frontend import Call, Effect, Function, SourceFile, library_function
from accls.suggest.lifetime_uses import base_name

__all__ = ["call_effects"]


def _callee_effects(
    source: SourceFile, callee: Function, names: set[str]
) -> tuple[bool, bool]:
    """(reads, writes) of the callee through `names`; both when it calls on."""
    if any(
        source.function(c) is not None or library_function(c) is None
        for c in callee.calls
    ):
        return True, True  # it calls code that may touch the array too
    refs = [
        r
        for r in callee.refs
        if base_name(r.name) in names and (r.subscripts or r.deref)
    ]
    return any(r.is_read for r in refs), any(r.is_write for r in refs)


def call_effects(
    source: SourceFile, fn: Function, name: str, call: Call
) -> tuple[bool, bool]:
    """(reads, writes): whether `call` in `fn` may read or write the array `name`."""
    # The pointer itself passed on (`u`, `u + k`, `&u[k]`); an element is a ref.
    passed = re.compile(
        rf"^[(&\s]*{re.escape(name)}\b(?!\s*\[)|^&\s*{re.escape(name)}\b"
    )
    at = [k for k, arg in enumerate(call.args) if passed.match(arg.strip())]
    callee = source.function(call.name)
    if callee is None:
        entry = library_function(call.name)
        if entry is None:
            # Unknown code: it may reach a global, or what it is handed.
            touched = bool(at) or fn.lookup(name) is None
            return touched, touched
        return bool(at), bool(at) and entry.effect is not Effect.PURE
    names = {callee.params[k].name for k in at if k < len(callee.params)}
    if fn.lookup(name) is None and callee.lookup(name) is None:
        names.add(name)  # a global the callee sees under its own name
    if not names:
        return False, False
    return _callee_effects(source, callee, names)
