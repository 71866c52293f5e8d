"""Whether writes earlier in an iteration reach a read (both arms of if/else count)."""

from __future__ import annotations

from collections.abc import Sequence

from accls.frontend import Ref

__all__ = ["always_written"]


def always_written(
    read: Ref, writes: Sequence[Ref], two_way: frozenset[tuple[int, int]]
) -> bool:
    """True when `writes` (earlier in the iteration) run on every path to `read`.

    A write covers the reads of its own context and of the contexts inside it; an
    `if` with an `else` whose two arms each always write covers the context that
    holds the `if` (`t = ...` in both arms, then `use(t)`).
    """
    contexts = {w.context for w in writes}
    return any(
        _covers(read.context[:k], contexts, two_way)
        for k in range(len(read.context) + 1)
    )


def _covers(
    ctx: tuple[int, ...],
    contexts: set[tuple[int, ...]],
    two_way: frozenset[tuple[int, int]],
) -> bool:
    if ctx in contexts:
        return True
    depth = len(ctx)
    arms = {c[depth] for c in contexts if len(c) > depth and c[:depth] == ctx}
    return any(
        then in arms
        and other in arms
        and _covers((*ctx, then), contexts, two_way)
        and _covers((*ctx, other), contexts, two_way)
        for then, other in two_way
    )
