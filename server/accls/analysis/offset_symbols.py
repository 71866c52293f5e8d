"""Whether an offset's variable may change with no write of its name in sight.

`double *b = blk + off;` (or a table entry, or a brace-initialised field) is
read back at the loop as the text `blk + off`, which is the pointer's value only
while `off` keeps the value it had when the pointer was set. A write of `off`
in the function shows; these do not: a global or `static` local that a call
after the pointer was set may assign (`set_off(n)`), and a local whose address
is taken anywhere (`int *po = &off; *po = n;`, `widen(&off)`), since the front
end marks the address of pointers only.
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile, library_function

__all__ = ["moved_unseen"]

# Library calls that run user code, which may assign any global.
_CALLBACKS = frozenset({"qsort", "bsearch", "atexit", "signal", "bsearch_s", "qsort_s"})


def moved_unseen(name: str, after: int, fn: Function, source: SourceFile) -> bool:
    """Whether `name` may change after byte `after` with no write of it in `fn`."""
    var = fn.lookup(name)
    if var is not None and var.scope in ("local", "param") and not var.static:
        return var.address_taken or any(r.name == name and r.escapes for r in fn.refs)
    if var is None:
        var = next((g for g in source.globals if g.name == name), None)
        if var is None:
            return False  # an enumerator, a type or a macro: no storage
    if "const" in var.type.split() and not var.pointers:
        return False
    if var.address_taken or any(
        r.name == name and r.escapes for f in source.functions for r in f.refs
    ):
        return True  # `&g_off` somewhere: a pointer may assign it anywhere
    return any(
        call.span.start_byte > after
        and (library_function(call.name) is None or call.name in _CALLBACKS)
        for call in fn.call_sites
    )
