"""The levels benchmark's groups: why an expert loop was missed, how levels differ.

A missed loop's first reason is not always the decisive one: a pragma the
compile check withdrew keeps the analysis' reasons ("no loop-carried
dependence ...") ahead of its `not offered: ...`, and a loop inside a parallel
loop first says where it runs, then why it takes no level of its own. The
decisive reason is the one to count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from quality_metrics import PairScore, reason_pattern

__all__ = ["decisive_reason", "mismatch_table", "misses_by_reason"]

_CONTEXT = "runs inside each iteration of the loop at line"


def decisive_reason(reasons: Sequence[str]) -> str:
    """The reason that decides a refusal, with names and lines blanked."""
    withdrawn = [r for r in reasons if r.startswith("not offered:")]
    if withdrawn:
        return reason_pattern(withdrawn[0])
    rest = [r for r in reasons if not r.startswith(_CONTEXT)]
    chosen = rest[0] if rest else (reasons[0] if reasons else "(no reason given)")
    return reason_pattern(chosen)


def mismatch_table(
    rows: Iterable[tuple[str, tuple[str, ...], tuple[str, ...]]],
) -> dict[str, int]:
    """Counts of `key: expert levels -> ours` for loops whose level sets differ.

    Each row is (model:place, the expert's levels, ours); `auto` is a
    `parallel loop` with no level word, `-` no level at all.
    """
    found: Counter[str] = Counter()
    for key, expert, ours in rows:
        if set(expert) == set(ours):
            continue
        found[f"{key}: {'/'.join(expert) or '-'} -> {'/'.join(ours) or '-'}"] += 1
    return dict(found.most_common())


def misses_by_reason(scores: list[PairScore]) -> dict[str, dict[str, int]]:
    """Per model: the expert loops with no pragma from accls, by reason class."""
    table: dict[str, Counter[str]] = {}
    for score in scores:
        if score.status == "collapsed" or (
            score.status == "suggested" and score.our_parallel
        ):
            continue
        if score.expert_seq:
            continue  # left sequential, as the expert did
        why = decisive_reason(score.reasons) if score.reasons else score.status
        table.setdefault(score.model, Counter())[why] += 1
    return {m: dict(c.most_common()) for m, c in sorted(table.items())}
