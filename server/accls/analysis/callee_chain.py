"""The shared state a call writes anywhere down its chain of callees.

A parallel loop's call of `f()` races on a `static` counter or a global just as
well when `f()` leaves the update to a helper it calls: `f -> count() -> calls++`.
The walk follows the file's own functions, skips calls made inside an excluding
construct (`critical`, `atomic`, ...) of the caller, and gives up on a chain that
calls the OpenMP runtime, whose synchronisation is followed elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.pointer_targets import pointer_targets
from accls.frontend import Function, Ref, SourceFile

__all__ = ["chain_functions", "chain_state_writes"]

_EXCLUDING = frozenset({"critical", "atomic", "single", "master", "masked", "ordered"})


def _unguarded_callees(fn: Function, source: SourceFile) -> list[str]:
    """The file's functions `fn` calls at least once outside exclusion."""
    start, end = fn.span.start_byte, fn.span.end_byte
    guarded = [
        c
        for c in source.constructs
        if first_word(c) in _EXCLUDING and start <= c.span.start_byte < end
    ]
    out: list[str] = []
    for name in dict.fromkeys(fn.calls):
        # `(*f)`: a call through a function pointer, to the functions bound to `f`
        called = name[2:-1] if name.startswith("(*") and name.endswith(")") else name
        targets = (
            (name,) if source.function(name) else pointer_targets(fn, called, source)
        )
        if not targets:
            continue
        call = re.compile(rb"\b" + re.escape(called.encode()) + rb"\s*\)?\s*\(")
        sites = [m.start() for m in call.finditer(source.data, start, end)]
        if any(not any(contains(c, at) for c in guarded) for at in sites):
            out.extend(targets)
    return out


def chain_functions(callee: Function, source: SourceFile) -> list[Function] | None:
    """`callee` and the file's functions it reaches outside exclusion, nearest first.

    None when one of them calls the OpenMP runtime.
    """
    order: list[Function] = []
    stack, seen = [callee], {callee.name}
    while stack:
        fn = stack.pop(0)
        if any(c.startswith("omp_") for c in fn.calls):
            return None
        order.append(fn)
        for name in _unguarded_callees(fn, source):
            nested = source.function(name)
            if nested is not None and name not in seen:
                seen.add(name)
                stack.append(nested)
    return order


def chain_state_writes(
    callee: Function,
    source: SourceFile,
    writes_of: Callable[[Function, SourceFile, frozenset[str]], list[Ref]],
    threadprivate: frozenset[str],
) -> tuple[Function, list[Ref]]:
    """The first function reached from `callee` writing shared state, and its writes.

    `callee` itself comes first; the answer is `(callee, [])` when no function of
    the chain writes any, or when one of them calls the OpenMP runtime.
    """
    for fn in chain_functions(callee, source) or ():
        writes = writes_of(fn, source, threadprivate)
        if writes:
            return fn, writes
    return callee, []
