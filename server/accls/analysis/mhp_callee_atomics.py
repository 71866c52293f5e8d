"""A callee's `atomic` update of a member the caller shares, placed at the call.

`take_job(q)` runs `#pragma omp atomic capture` over `t = q->next++`: at the call
it is an atomic update of the caller's `q->next`, which another thread's plain
read of `q->next` in the region races with, while other atomic accesses do not.
Only an `atomic` whose target is the member is followed, with the `critical`
names around it; under `single`, `master` or `ordered` it is left out.
"""

from __future__ import annotations

from accls.analysis.mhp_constructs import contains, first_word, pragma_at
from accls.analysis.mhp_sync import atomic_targets
from accls.frontend import Function, Ref, SourceFile

__all__ = ["ATOMIC", "callee_atomic_held"]

ATOMIC = "atomic:"
"""Marks, among the names held around a callee's access, that the access is atomic."""


def callee_atomic_held(
    callee: Function, ref: Ref, source: SourceFile
) -> frozenset[str] | None:
    """The `critical` names and `ATOMIC` around an atomic target; None otherwise.

    `ref` keeps its span in the callee (its name may be the caller's).
    """
    start, end = callee.span.start_byte, callee.span.end_byte
    pos = ref.span.start_byte
    around = [
        c
        for c in source.constructs
        if start <= c.span.start_byte < end and contains(c, pos)
    ]
    atomics = [c for c in around if first_word(c) == "atomic"]
    if len(atomics) != 1 or any(
        first_word(c) not in ("atomic", "critical") for c in around
    ):
        return None
    own = next(
        (r for r in callee.refs if r.span.start_byte == pos and r.is_write), None
    )
    targets = atomic_targets(atomics, callee).get(pragma_at(atomics[0]), frozenset())
    if own is None or own.name not in targets:
        return None
    names = {f"critical:{_name(c)}" for c in around if first_word(c) == "critical"}
    return frozenset({ATOMIC, *names})


def _name(construct: object) -> str:
    clauses = construct.directive.clauses  # type: ignore[attr-defined]
    clause = clauses[0] if clauses else None
    return (clause.args or "").strip() if clause and not clause.name else ""
