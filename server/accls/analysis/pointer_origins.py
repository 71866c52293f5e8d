"""A local pointer set once from array objects: it points into them, nowhere else.

`const option_t *o = &book[k];` before a loop that writes `payoff[p]` and reads
`o->spot`: `o` is a local, assigned once, its address never taken, and every
value it may hold comes from the global array `book` (`&book[k]`, `book + k`).
It reaches `book` only, so its pointee and another array object (`payoff`, or
what another such pointer reaches) are apart. A source that is itself a
pointer (a parameter, a global pointer, a table of pointers) or a call's
result may point anywhere, and gives no proof.
"""

from __future__ import annotations

from accls.analysis.access_paths import Target
from accls.analysis.integer_addresses import integer_addresses
from accls.frontend import FROM_CALL, Function, SourceFile, Var

__all__ = ["origin_apart"]

_DEPTH = 8  # locals followed through copies, at most


def _is_object(var: Var | None) -> bool:
    """An array of non-pointers, a local or a global: storage, not an address.

    An array parameter (`double a[N]`) is a pointer, whatever its declaration.
    """
    return (
        var is not None
        and var.scope in ("local", "global")
        and bool(var.dims)
        and not var.pointers
    )


def _objects(pointer: Var, fn: Function, source: SourceFile) -> frozenset[str] | None:
    """The array objects a local pointer may point into; None when unknown.

    An integer source is an offset (`&src[c]`), unless the function turns
    that integer into an address (`(double *)addr`).
    """
    addresses = integer_addresses(fn, source)
    cast = addresses.params | set(addresses.others)
    found: set[str] = set()
    todo: list[Var] = [pointer]
    seen: set[str] = set()
    while todo:
        var = todo.pop()
        if var.name in seen:
            continue
        if len(seen) >= _DEPTH:
            return None
        seen.add(var.name)
        if var.scope != "local" or var.static or var.address_taken or var.leaves:
            return None
        writes = [
            r
            for r in fn.refs
            if r.name == var.name and r.is_write and not r.subscripts and not r.deref
        ]
        if len(writes) != 1 or not var.sources or FROM_CALL in var.sources:
            return None  # set more than once, from nothing seen, or by a call
        for name in var.sources:
            local = fn.lookup(name)
            if local is not None and fn.declarations(name) == 1 and local.pointers:
                todo.append(local)  # a copy of another local pointer
                continue
            glob = next((g for g in source.globals if g.name == name), None)
            obj = local if local is not None else glob
            if _is_object(obj):
                found.add(name)
            elif obj is None or obj.dims or obj.pointers or name in cast:
                return None  # a pointer, a table, or an integer made an address
    if not found:
        return None
    return frozenset(found)


def origin_apart(a: Target, b: Target, fn: Function | None, source: SourceFile) -> str:
    """Why a local pointer's pointee and another target are apart, or ""."""
    if fn is None:
        return ""
    for ptr, other in ((a, b), (b, a)):
        if ptr.kind != "pointee" or ptr.root is None or other.root is None:
            continue
        if fn.lookup(ptr.root.name) is not ptr.root:
            continue  # not this function's local
        into = _objects(ptr.root, fn, source)
        if not into:
            continue
        if other.kind == "object" and _is_object(other.root):
            reached = frozenset({other.root.name})
        elif other.kind == "pointee" and fn.lookup(other.root.name) is other.root:
            reached = _objects(other.root, fn, source) or frozenset()
        else:
            continue
        if reached and not into & reached:
            listed = ", ".join(f"`{n}`" for n in sorted(into))
            return (
                f"`{ptr.root.name}` is set once, from {listed} only: it never "
                f"points into `{other.root.name}`"
            )
    return ""
