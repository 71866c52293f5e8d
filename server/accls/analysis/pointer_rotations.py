"""Local pointers that only hold parameters: copies, and buffers swapped in turn.

`double *in = a, *out = b;` then, after each sweep, `t = in; in = out; out = t;`
(a stencil's two buffers). At any statement outside the three of the swap,
`(in, out)` is `(a, b)` or `(b, a)`: `in` and `out` never point to one object
when `a` and `b` do not, and a third pointer misses both when it misses `a`
and `b`. A pointer set once from a parameter (`double *in = a;`) is that
parameter. The caller's arguments then decide (`distinct_at_call_sites`).

Only plain copies count: each store must be `p = name;`, the pointers' (and
the temporary's) addresses never taken, the parameters never reassigned, the
three stores of the swap consecutive statements, and the loop must hold none
of the stores. Anything else leaves the pair to the other tests.
"""

from __future__ import annotations

import re
from itertools import pairwise

from accls.frontend import (
    Effect,
    Function,
    Loop,
    Ref,
    SourceFile,
    Span,
    Var,
    is_cpp,
    library_function,
)

__all__ = ["ALLOCATION", "local_in_scope", "origin_pairs", "swapped"]

# `p = q;`, or through a pointer cast `p = (const unsigned char *) q;`: the same
# memory either way.
_COPY = re.compile(
    r"\s*=\s*(?:\(\s*(?:const\s+|volatile\s+)*[A-Za-z_][\w\s]*\*+\s*\)\s*)?"
    r"([A-Za-z_]\w*)\s*[;,]"
)
# `= malloc(`, `= (double *) calloc(`: a store of a call's result.
_CALLED = re.compile(r"\s*=\s*(?:\(\s*[A-Za-z_][\w\s]*\*+\s*\)\s*)?([A-Za-z_]\w*)\s*\(")
ALLOCATION = "(allocation)"
"""The origin of a pointer set from a fresh block of an allocator's call."""


def _stores(var: Var, fn: Function, source: SourceFile) -> list[Ref] | None:
    """The stores of the pointer `var` itself; None when it may change otherwise."""
    if var.address_taken or var.pointers != 1 or var.dims:
        return None
    if is_cpp(source.path) and any(var.name in c.args for c in fn.call_sites):
        return None  # C++ may pass it by reference (`double *&p`)
    end = _end(var, fn)
    start = var.span.start_byte if var.span is not None else fn.span.start_byte
    out: list[Ref] = []
    for ref in sorted(fn.refs, key=lambda r: r.span.start_byte):
        if ref.name != var.name or not start <= ref.span.start_byte <= end:
            continue
        if ref.escapes or ref.into:
            return None
        if ref.is_write and not ref.subscripts and not ref.deref:
            out.append(ref)
    return out


def _copied(ref: Ref, source: SourceFile) -> str:
    """The name a store `p = q;` (or `p = (T *) q;`) copies, else ""."""
    found = _COPY.match(source.code, ref.span.end_byte)
    return found.group(1) if found is not None else ""


def _statement_end(ref: Ref, source: SourceFile) -> int:
    return source.code.find(";", ref.span.end_byte) + 1


def _end(var: Var, fn: Function) -> int:
    return var.scope_end if var.scope_end >= 0 else fn.span.end_byte


def local_in_scope(name: str, fn: Function, at: int) -> Var | None:
    """The local called `name` in scope at byte `at`, unless an inner one shadows it.

    `float *t` of a swap beside an `int t` of the loop body: each has its scope.
    """
    found = [
        v
        for v in fn.locals
        if v.name == name and v.span is not None and v.span.start_byte <= at
        if at <= _end(v, fn)
    ]
    if not found:
        return None
    var = max(found, key=lambda v: v.span.start_byte if v.span is not None else 0)
    start = var.span.start_byte if var.span is not None else 0
    for other in fn.locals:
        if other is var or other.name != name or other.span is None:
            continue
        if start <= other.span.start_byte <= _end(var, fn):
            return None  # a name declared again inside its scope
    return var


def _allocated(ref: Ref, source: SourceFile) -> bool:
    """Whether the store `p = malloc(..);` is of a fresh block."""
    found = _CALLED.match(source.code, ref.span.end_byte)
    if found is None:
        return False
    name = found.group(1)
    if name in source.allocators:
        return True
    known = library_function(name) if source.function(name) is None else None
    return known is not None and known.effect is Effect.ALLOC and not known.device


def _fixed_param(name: str, fn: Function) -> bool:
    """A pointer parameter the body never reassigns (nor shadows)."""
    var = fn.lookup(name)
    if var is None or var.scope != "param" or fn.declarations(name) != 1:
        return False
    if not (var.pointers or var.dims) or var.address_taken:
        return False
    return not any(
        r.name == name and r.is_write and not r.subscripts and not r.deref
        for r in fn.refs
    )


def _outside(refs: list[Ref], loop: Loop | Span) -> bool:
    span = loop.span if isinstance(loop, Loop) else loop
    return not any(span.start_byte <= r.span.start_byte < span.end_byte for r in refs)


def _copy_of(var: Var, fn: Function, source: SourceFile, loop: Loop) -> str:
    """The parameter a local pointer set once by a plain copy holds, else ""."""
    stores = _stores(var, fn, source)
    if stores is None or len(stores) != 1 or not _outside(stores, loop):
        return ""
    if stores[0].span.start_byte >= loop.span.start_byte:
        return ""
    name = _copied(stores[0], source)
    return name if _fixed_param(name, fn) else ""


def swapped(
    p: Var, q: Var, fn: Function, source: SourceFile, loop: Loop | Span
) -> tuple[str, str] | None:
    """The parameters `(x, y)` when `p` and `q` only ever hold `x, y` or `y, x`.

    `(ALLOCATION, ALLOCATION)` when they hold two blocks each allocated once.
    `loop` is where they are used (a loop, or a call's span): set before it,
    swapped outside it.
    """
    p_stores, q_stores = _stores(p, fn, source), _stores(q, fn, source)
    if p_stores is None or q_stores is None or len(p_stores) != 2:
        return None
    if len(q_stores) != 2 or not _outside([*p_stores, *q_stores], loop):
        return None
    x, y = _copied(p_stores[0], source), _copied(q_stores[0], source)
    if _allocated(p_stores[0], source) and _allocated(q_stores[0], source):
        x = y = ALLOCATION  # two blocks, each set once: apart, whoever holds them
    elif x == y or not _fixed_param(x, fn) or not _fixed_param(y, fn):
        return None
    use = loop.span if isinstance(loop, Loop) else loop
    if max(p_stores[0].span.start_byte, q_stores[0].span.start_byte) > min(
        use.start_byte, p_stores[1].span.start_byte, q_stores[1].span.start_byte
    ):
        return None  # both set before the loop and before the swap
    # `t = p; p = q; q = t;` (or with `p` and `q` exchanged), back to back.
    first, second = sorted((p_stores[1], q_stores[1]), key=lambda r: r.span.start_byte)
    temp = _copied(second, source)
    if _copied(first, source) != second.name or not temp:
        return None
    held = local_in_scope(temp, fn, second.span.start_byte)
    temp_stores = _stores(held, fn, source) if held is not None else None
    if temp_stores is None or len(temp_stores) != 1:
        return None
    if _copied(temp_stores[0], source) != first.name:
        return None
    chain = (temp_stores[0], first, second)
    starts = [r.span.start_byte for r in chain]
    if starts != sorted(set(starts)):
        return None
    for before, after in pairwise(chain):
        gap = source.code[_statement_end(before, source) : after.span.start_byte]
        if gap.strip():
            return None  # another statement (or a label) between the stores
    return x, y


def origin_pairs(
    a: Var, b: Var, fn: Function, source: SourceFile, loop: Loop
) -> tuple[tuple[tuple[str, str], ...], str] | None:
    """The pairs of parameters that must not overlap for `a` and `b` not to, and why.

    None when either is neither a parameter nor a local that only holds them.
    """
    if a.scope == "param" and b.scope == "param":
        return ((a.name, b.name),), ""
    at = loop.span.start_byte
    if (
        a.scope == "local"
        and b.scope == "local"
        and local_in_scope(a.name, fn, at) is a
        and local_in_scope(b.name, fn, at) is b
    ):
        swap = swapped(a, b, fn, source, loop)
        if swap == (ALLOCATION, ALLOCATION):
            return (), (
                f"`{a.name}` and `{b.name}` hold two blocks they allocated, "
                "swapped in turn"
            )
        if swap is not None:
            return (swap,), (
                f"`{a.name}` and `{b.name}` hold `{swap[0]}` and `{swap[1]}`, "
                "swapped in turn"
            )
    origins: list[tuple[str, ...]] = []
    notes: list[str] = []
    for var in (a, b):
        if var.scope == "param":
            origins.append((var.name,))
            continue
        if local_in_scope(var.name, fn, at) is not var:
            return None
        copy = _copy_of(var, fn, source, loop)
        if copy:
            origins.append((copy,))
            notes.append(f"`{var.name}` is a copy of `{copy}`")
            continue
        partner = _partner(var, fn, source, loop)
        if partner is None:
            return None
        origins.append(partner)
        notes.append(
            f"`{var.name}` holds one of two blocks it allocated"
            if partner[0] == ALLOCATION
            else f"`{var.name}` holds `{partner[0]}` or `{partner[1]}`"
        )
    pairs: list[tuple[str, str]] = []
    for x in origins[0]:
        for y in origins[1]:
            if ALLOCATION not in (x, y):
                pairs.append((x, y))
                continue
            # A block allocated here misses every other block and every
            # parameter (set before it was allocated, never reassigned).
            other = y if x == ALLOCATION else x
            if other != ALLOCATION and not _fixed_param(other, fn):
                return None
    return tuple(pairs), "; ".join(notes)


def _partner(
    var: Var, fn: Function, source: SourceFile, loop: Loop
) -> tuple[str, str] | None:
    """Both parameters a swapped pointer may hold (its partner found by its stores)."""
    stores = _stores(var, fn, source)
    if stores is None or len(stores) != 2:
        return None
    other = _copied(stores[1], source)
    partner = local_in_scope(other, fn, stores[1].span.start_byte) if other else None
    found = swapped(var, partner, fn, source, loop) if partner is not None else None
    if found is not None:
        return found
    # `q = t;`: the partner is the pointer the temporary copied (`t = p;`).
    temp = _stores(partner, fn, source) if partner is not None else None
    if temp is None or len(temp) != 1:
        return None
    origin = _copied(temp[0], source)
    first = local_in_scope(origin, fn, temp[0].span.start_byte) if origin else None
    if first is None or first is var:
        return None
    return swapped(var, first, fn, source, loop)
