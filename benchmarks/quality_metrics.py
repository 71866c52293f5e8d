"""Score each expert pair against our suggestion and aggregate the scores."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from statistics import fmean
from typing import Any

from pragma_text import (
    clause_items,
    clause_names,
    is_sequential,
    jaccard,
    normalised,
    parse_pragma,
)

# Why a pair has no score: its file was not in the sources, the CLI failed on the
# file, no suggestion object sat on its loop, or the object's pragma was null.
STATUSES = ("suggested", "collapsed", "refused", "unmatched", "failed", "no_source")


@dataclass(frozen=True, slots=True, kw_only=True)
class PairScore:
    """One expert pair compared with our suggestion for the same loop."""

    id: str
    repo: str
    model: str
    expert: str
    expert_directive: str
    expert_seq: bool
    loop_head: str
    status: str
    ours: str | None = None
    our_directive: str | None = None
    our_parallel: bool = False
    directive_match: bool = False
    family_match: bool = False
    jaccard_names: float = 0.0
    jaccard_items: float = 0.0
    exact: bool = False
    missing_clauses: tuple[str, ...] = ()  # clause names the expert used, we did not
    extra_clauses: tuple[str, ...] = ()  # clause names we used, the expert did not
    reasons: tuple[str, ...] = ()
    existing: str | None = None  # a pragma accls found already on the loop
    enclosed_by: int | None = None  # unmatched: line of an enclosing reported loop
    folded_by: str | None = None  # collapsed: our pragma whose `collapse` folds it

    @property
    def suspicious(self) -> bool:
        """We asked for parallelism where the expert asked for sequential code."""
        return self.expert_seq and self.our_parallel

    def to_json(self) -> dict[str, Any]:
        """Plain dict for quality.json."""
        return asdict(self)


def score_pair(
    base: dict[str, Any], status: str, suggestion: dict[str, Any] | None
) -> PairScore:
    """Compare the expert pragma in `base` with `suggestion` (None if none)."""
    expert = parse_pragma(str(base["expert"]))
    common = {
        **base,
        "expert_directive": expert.directive,
        "expert_seq": is_sequential(expert),
    }
    if suggestion is None:
        return PairScore(status=status, **common)
    reasons = tuple(str(r) for r in suggestion.get("reasons") or ())
    existing = suggestion.get("existing_pragma")
    common["existing"] = existing if isinstance(existing, str) else None
    text = suggestion.get("pragma")
    if not isinstance(text, str) or not text.strip():
        return PairScore(status="refused", reasons=reasons, **common)
    ours = parse_pragma(text)
    expert_names, our_names = clause_names(expert), clause_names(ours)
    return PairScore(
        status="suggested",
        ours=" ".join(text.split()),
        our_directive=ours.directive,
        our_parallel=not is_sequential(ours),
        directive_match=ours.directive == expert.directive,
        family_match=ours.family == expert.family,
        jaccard_names=jaccard(expert_names, our_names),
        jaccard_items=jaccard(clause_items(expert), clause_items(ours)),
        exact=normalised(ours) == normalised(expert),
        missing_clauses=tuple(sorted(expert_names - our_names)),
        extra_clauses=tuple(sorted(our_names - expert_names)),
        reasons=reasons,
        **common,
    )


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def aggregate(scores: Iterable[PairScore]) -> dict[str, Any]:
    """Headline metrics over a group of pairs."""
    rows = list(scores)
    analysed = [
        s
        for s in rows
        if s.status in ("suggested", "collapsed", "refused", "unmatched")
    ]
    parallel = [s for s in analysed if not s.expert_seq]
    seq = [s for s in analysed if s.expert_seq]
    ours = [s for s in analysed if s.status == "suggested"]
    return {
        "pairs": len(rows),
        "analysed": len(analysed),
        "no_source": sum(s.status == "no_source" for s in rows),
        "failed": sum(s.status == "failed" for s in rows),
        "unmatched": sum(s.status == "unmatched" for s in rows),
        "unmatched_enclosed": sum(
            s.status == "unmatched" and s.enclosed_by is not None for s in rows
        ),
        "refused": sum(s.status == "refused" for s in rows),
        # Folded into an outer loop's collapse(n): parallel, with no pragma of its own.
        "collapsed": sum(s.status == "collapsed" for s in rows),
        "suggested": len(ours),
        "expert_parallel": len(parallel),
        "expert_seq": len(seq),
        "recall_parallel": _rate(
            sum(s.status in ("suggested", "collapsed") for s in parallel), len(parallel)
        ),
        "recall_seq": _rate(sum(s.status == "suggested" for s in seq), len(seq)),
        "directive_match": _rate(sum(s.directive_match for s in ours), len(ours)),
        "family_match": _rate(sum(s.family_match for s in ours), len(ours)),
        "jaccard_names": fmean(s.jaccard_names for s in ours) if ours else None,
        "jaccard_items": fmean(s.jaccard_items for s in ours) if ours else None,
        "exact": _rate(sum(s.exact for s in ours), len(ours)),
        "exact_of_analysed": _rate(sum(s.exact for s in ours), len(analysed)),
        "suspicious": sum(s.suspicious for s in rows),
    }


def grouped(scores: list[PairScore], key: str) -> dict[str, dict[str, Any]]:
    """`aggregate` per value of the PairScore field `key`."""
    groups: dict[str, list[PairScore]] = {}
    for score in scores:
        groups.setdefault(str(getattr(score, key)), []).append(score)
    return {name: aggregate(groups[name]) for name in sorted(groups)}


def reason_pattern(reason: str) -> str:
    """A reason with names, subscripts and line numbers blanked, for counting."""
    blanked = re.sub(r"\s*\(line \d+\)", "", re.sub(r"`[^`]*`", "`_`", reason))
    return re.sub(r"\bline \d+", "line N", blanked).strip()[:160]


def mismatch_patterns(scores: list[PairScore], top: int = 15) -> dict[str, Any]:
    """The most frequent ways our pragmas differ from the experts'."""
    ours = [s for s in scores if s.status == "suggested"]
    directive = Counter(
        f"{s.expert_directive} -> {s.our_directive}"
        for s in ours
        if not s.directive_match
    )
    missing = Counter(name for s in ours for name in s.missing_clauses)
    extra = Counter(name for s in ours for name in s.extra_clauses)
    refusals = Counter(
        reason_pattern(s.reasons[0] if s.reasons else "(no reason given)")
        for s in scores
        if s.status == "refused" and not s.expert_seq
    )
    return {
        "directive": directive.most_common(top),
        "missing_clauses": missing.most_common(top),
        "extra_clauses": extra.most_common(top),
        "refusal_reasons": refusals.most_common(top),
    }
