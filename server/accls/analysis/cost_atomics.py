"""Atomic-bound loops: iterations that mostly wait on a contended atomic update.

A histogram loop (`count[bin[i]]++` made `atomic`) runs in parallel only as fast as
the atomic updates go. On a CPU an atomic read-modify-write of a cache line that the
other threads also update costs tens of nanoseconds (the line moves between cores),
against about one for the plain update: with two threads the loop pays only when
the rest of an iteration's work is larger than that. A loop whose iteration holds
less work than its atomic updates cost is slower in parallel, whatever its trip
count; the experts leave it serial.
"""

from __future__ import annotations

from accls.analysis.model import LoopFacts

__all__ = ["ATOMIC_UNITS", "atomic_reason"]

ATOMIC_UNITS = 50
"""Cost units (about a nanosecond each) of one contended atomic update on a CPU."""


def atomic_reason(facts: LoopFacts, per_iteration: int | None) -> str:
    """Why the loop's atomic updates cost more than its work, or "".

    `per_iteration`: the work units of one iteration of the loop (its own trip
    count counted once), None when not known.
    """
    if not facts.atomics or per_iteration is None:
        return ""
    cost = ATOMIC_UNITS * len(facts.atomics)
    if per_iteration >= cost:
        return ""
    names = ", ".join(f"`{n}`" for n in sorted({r.name for r in facts.atomics}))
    return (
        f"atomic-bound loop: about {per_iteration} work units per iteration against "
        f"{cost} for its atomic updates of {names}; the threads would mostly wait "
        "on them"
    )
