"""Which iterations of a loop touch a structure member: one, or several."""

from __future__ import annotations

from accls.analysis.race_exemptions import pinned_arm
from accls.frontend import Loop, Ref, SourceFile

__all__ = [
    "atomic_member_read",
    "other_access",
    "plain_member_writes",
    "touched_once",
]


def plain_member_writes(loop: Loop, name: str) -> list[Ref]:
    """The writes of member `name` outside `atomic`/`critical`, in source order.

    An `atomic` update of the member elsewhere in the loop does not order them:
    a plain store races with another thread's atomic update of the same field.
    """
    return [
        r
        for r in loop.refs
        if r.name == name and r.member and r.is_write and not r.atomic
    ]


def touched_once(loop: Loop, name: str, source: SourceFile) -> bool:
    """True when every access of member `name` sits in one `if (i == K)` arm.

    A single iteration then reads and writes the field: no other thread touches
    it inside the loop. An access outside that arm (an `atomic` update in every
    iteration, say) comes from other iterations and races with the store.
    """
    refs = [r for r in loop.refs if r.name == name and r.member]
    arms = {pinned_arm(r.span, loop, source) for r in refs}
    return len(arms) == 1 and None not in arms


def other_access(loop: Loop, name: str, write: int) -> dict[str, int]:
    """`read`: a line reading member `name`; else `atomic`: one updating it atomically.

    Another thread's access there is what the plain store at line `write` races with.
    """
    refs = [r for r in loop.refs if r.name == name and r.member]
    reads = [r.span.line for r in refs if not r.is_write]
    if reads:
        return {"read": ([line for line in reads if line != write] or reads)[0]}
    updates = [r.span.line for r in refs if r.atomic and r.span.line != write]
    return {"atomic": updates[0]} if updates else {}


def atomic_member_read(loop: Loop, name: str) -> tuple[Ref, Ref] | None:
    """(an atomic write, a plain read) of member `name` when every write is atomic.

    `slot = q->tail;` beside `#pragma omp atomic` / `q->tail++;`: the atomic
    updates do not race with each other, but the plain read races with another
    thread's update, as for a scalar.
    """
    refs = [r for r in loop.refs if r.name == name and r.member]
    writes = [r for r in refs if r.is_write]
    reads = [r for r in refs if not r.is_write and not r.atomic]
    if not writes or not reads or any(not r.atomic for r in writes):
        return None
    return writes[0], reads[0]
