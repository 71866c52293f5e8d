"""Loop shapes that leave nothing worth sharing out, whatever their trip count.

- An *allocation loop*: every iteration allocates or frees memory (directly or
  through a loop-free function of the file) and computes little else. Its time is
  the allocator's and the page faults', which threads do not divide; it is setup code.
- A *repeat loop*: the body never uses the loop variable, so every iteration does
  the same work on the same data (`for (it = 0; it < iterations; it++) s += x;`).
  Its trip count is a repeat count, not data to divide between threads.
- A loop whose author commented out a parallel pragma above it (cost_intent).
- A loop whose bounds follow from the thread's number: one thread's part of work
  divided by hand (cost_by_hand).
"""

from __future__ import annotations

import re

from accls.analysis.cost_by_hand import by_hand_reason
from accls.analysis.cost_intent import disabled_reason
from accls.frontend import Loop, SourceFile
from accls.frontend.library import Effect, library_function

__all__ = ["shape_reason"]

_ALLOCATING = frozenset({Effect.ALLOC, Effect.FREE})
_HARMLESS = frozenset({Effect.PURE, Effect.MEMORY})
_WORD = re.compile(r"[A-Za-z_]\w*")


def _allocates(source: SourceFile, name: str) -> bool | None:
    """True: it allocates or frees; False: it does neither; None: it does more."""
    entry = library_function(name)
    if entry is not None:
        if entry.effect in _ALLOCATING:
            return True
        return False if entry.effect in _HARMLESS else None
    fn = source.function(name)
    if fn is None or any(n.function == name for n in source.nests):
        return None  # unknown work, or loops of its own
    found = [library_function(c.name) for c in fn.call_sites]
    if any(e is not None and e.effect in _ALLOCATING for e in found):
        return True
    return None


def _allocation_reason(source: SourceFile, loop: Loop) -> str:
    if loop.children or not loop.calls:
        return ""
    kinds = [_allocates(source, call.name) for call in loop.calls]
    if any(k is None for k in kinds) or not any(kinds):
        return ""
    return "setup loop: each iteration allocates or frees memory and computes little"


def _repeat_reason(loop: Loop) -> str:
    var = loop.var
    if var is None:
        return ""
    header = loop.header
    for ref in loop.refs:
        outside = not header.start_byte <= ref.span.start_byte < header.end_byte
        indexed = any(
            s.poly is not None and var in s.poly.names() for s in ref.subscripts
        )
        if outside and (ref.name == var or ref.advance is not None or indexed):
            return ""  # it uses the variable, or a scalar steps with the iterations
    if any(var in _WORD.findall(arg) for call in loop.calls for arg in call.args):
        return ""
    return f"repeat loop: the body never uses `{var}`: each iteration does the same"


def shape_reason(source: SourceFile, loop: Loop) -> str:
    """Why `loop`'s shape leaves nothing worth sharing out, or ""."""
    return (
        _repeat_reason(loop)
        or _allocation_reason(source, loop)
        or disabled_reason(source, loop)
        or by_hand_reason(source, loop)
    )
