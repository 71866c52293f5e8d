"""Which names a worksharing loop's OpenMP locks protect, and which half of the time."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.concurrency_kinds import EXCLUSION_RACE
from accls.analysis.findings import Finding, finding
from accls.analysis.mhp_locks import LockTable, lock_table
from accls.frontend import Directive, Loop, Ref, SourceFile

__all__ = ["NO_LOCKS", "LoopLocks", "half_locked_findings", "loop_locks"]


@dataclass(frozen=True, slots=True)
class LoopLocks:
    """`guarded`: every reference holds one lock; `half`: (unlocked, locked) refs."""

    guarded: frozenset[str]
    half: tuple[tuple[Ref, Ref, str], ...]  # (unlocked, locked, the lock)


NO_LOCKS = LoopLocks(frozenset(), ())
"""A loop that takes no lock."""


def loop_locks(loop: Loop, source: SourceFile) -> LoopLocks | None:
    """What the loop's lock calls protect; None when they cannot be followed.

    They cannot be followed with a lock passed through a pointer, `omp_test_lock`,
    a lock set or released in a branch the access is not in, or a loop that is not
    the statement of one construct. The lock objects themselves count as guarded.
    """
    fn = source.function(loop.function) if loop.function else None
    construct = next(
        (c for c in source.constructs if c.span.start_byte == loop.id), None
    )
    if fn is None or construct is None:
        return None
    table = lock_table(construct, fn, source, ())
    if not table.calls:
        return None  # pthread locks, or locks the table does not see
    held: dict[str, list[tuple[Ref, frozenset[str]]]] = {}
    for ref in loop.refs:
        pos = ref.span.start_byte
        if table.in_call(pos):
            continue  # the `&lock` argument itself
        sure, partial, doubt = table.held(pos, -1)
        if doubt or partial or _unlocked_aside(table, pos):
            return None  # a branch takes or drops a lock around this access
        held.setdefault(ref.name, []).append((ref, sure))
    guarded = {c.lock for c in table.calls if c.lock}
    half: list[tuple[Ref, Ref, str]] = []
    for name, refs in held.items():
        common = frozenset.intersection(*(locks for _, locks in refs))
        if common:
            guarded.add(name)
            continue
        bare = [r for r, locks in refs if not locks]
        cover = [(r, locks) for r, locks in refs if locks]
        if not bare or not cover or not any(r.is_write for r, _ in refs):
            continue
        plain = next((r for r in bare if r.is_write), bare[0])
        other, locks = next(((r, k) for r, k in cover if r.is_write), cover[0])
        half.append((plain, other, sorted(locks)[0].removeprefix("lock:")))
    return LoopLocks(frozenset(guarded), tuple(half))


def half_locked_findings(
    loop: Loop, directive: Directive, locks: LoopLocks
) -> list[Finding]:
    """ACC121 for each name the loop updates both with and without a lock."""
    out: list[Finding] = []
    for plain, other, lock in locks.half:
        first, second = sorted((plain, other), key=lambda r: r.span.start_byte)
        out.append(
            finding(
                EXCLUSION_RACE,
                plain.span,
                first=first.render(),
                first_access=first.kind.value,
                first_line=first.span.line,
                second=second.render(),
                second_access=second.kind.value,
                second_line=second.span.line,
                overlap="may run in parallel",
                region=directive.name,
                line=loop.line,
                rule=(
                    f"iterations run on different threads, and the lock `{lock}` "
                    f"is held at line {other.span.line} but not at line "
                    f"{plain.span.line}"
                ),
                fix=(
                    f"take `{lock}` around the access at line {plain.span.line} "
                    "too, or make every access `atomic`"
                ),
            )
        )
    return out


def _unlocked_aside(table: LockTable, pos: int) -> bool:
    """True when a branch `pos` is not in releases a lock taken on the way to `pos`."""
    around = {g.start_byte for g in table.guards if g.start_byte <= pos < g.end_byte}
    for drop in table.calls:
        if drop.kind != "unset" or drop.pos >= pos or drop.guards <= around:
            continue
        if any(
            take.kind == "set"
            and take.lock == drop.lock
            and take.pos < drop.pos
            and take.guards <= around
            for take in table.calls
        ):
            return True
    return False
