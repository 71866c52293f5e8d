"""Pointers re-set to one value at the top of every iteration: `p = particles;`."""

from __future__ import annotations

from accls.frontend import AccessKind, Function, Loop

__all__ = ["invariant_copy", "stable_names"]


def stable_names(fn: Function | None) -> frozenset[str]:
    """The function's locals and parameters whose address is never taken."""
    if fn is None:
        return frozenset()
    return frozenset(
        v.name for v in (*fn.params, *fn.locals) if not v.address_taken and not v.static
    )


def invariant_copy(root: Loop, name: str, stable: frozenset[str]) -> bool:
    """True when each iteration of `root` first sets `name = q`, `q` fixed.

    `p = particles;` at the top of the body, before any use of `p`, with
    `particles` a local (`stable`: no address taken) the nest never assigns:
    `p` holds one value in every iteration, as if it were never written.
    """
    own = [r for r in root.refs if r.name == name]
    writes = [r for r in own if r.is_write and not r.subscripts and not r.deref]
    sources = {r.copies for r in writes}
    if len(sources) != 1 or "" in sources:
        return False
    (source,) = sources
    if source == name or source not in stable or source == root.var:
        return False
    if any(
        r.is_write and r.name == source and not r.subscripts and not r.deref
        for r in root.refs
    ):
        return False  # the source itself re-pointed
    for ref in writes:
        if ref.kind is not AccessKind.WRITE:
            return False
        at = ref.context.index(root.id) if root.id in ref.context else -1
        if at < 0 or ref.context[at + 1 :]:
            return False  # under a condition or in an inner loop
    first = min(r.span.start_byte for r in writes)
    return all(r.span.start_byte > first for r in own if r not in writes)
