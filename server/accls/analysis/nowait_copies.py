"""Scalars a `nowait` loop copies out (`lastprivate`, `reduction`), used too early.

The copy-out of `lastprivate(x)` happens on the thread that runs the last
iteration, when it finishes; a `reduction(+: s)` is combined into `s` as the
threads finish. Past `nowait` nothing waits for either: another thread reading
`x` or `s` in the next loop of the region races with the copy, whatever the two
loops' schedules (the reader need not be the copying thread).
"""

from __future__ import annotations

from accls.analysis.pragma_scope import clause_names
from accls.frontend import Directive, Loop, Ref

__all__ = ["early_copy_use"]

_COPIED = frozenset({"lastprivate", "reduction"})
# The next loop's own copies: its references do not touch the shared variable.
_OWN = frozenset({"private", "firstprivate", "lastprivate", "reduction", "linear"})


def early_copy_use(
    loop: Loop, directive: Directive, after: Loop, after_directive: Directive
) -> tuple[Ref, Ref] | None:
    """(the write in `loop`, the use in `after`) of a copied-out scalar, if any."""
    copied = clause_names((directive,), _COPIED) - clause_names(
        (after_directive,), _OWN
    )
    for use in after.refs:
        if use.name not in copied or use.subscripts:
            continue
        write = next((r for r in loop.refs if r.is_write and r.name == use.name), None)
        if write is not None:
            return write, use
    return None
