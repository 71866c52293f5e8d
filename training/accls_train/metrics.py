"""The seed's metrics for one predicted pragma against its reference, and totals.

Decisions, so that numbers can be compared across runs:
- Text is compared canonically: continuations joined, whitespace collapsed, no
  space around `( ) [ ] , :`. Exact match and Levenshtein use that text.
- A clause becomes items: `name:arg` per top-level comma-separated argument for
  list clauses (data clauses, private, shared, reduction, map, ...), a modifier
  before `:` kept with each item (`reduction(+:s,t)` -> `reduction:+:s`,
  `reduction:+:t`); other clauses keep their whole argument (`schedule:static,4`);
  clauses without arguments are just the name. Jaccard compares the item sets
  (1.0 when both are empty); the directive is not part of it.
- Directive match needs the same dialect and directive name (`parallel loop`).
- Rates that need a pragma (compile, race-free) count only predicted pairs;
  the others count a missing prediction as a miss.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from accls.frontend import Directive, parse_directive
from rapidfuzz.distance import Levenshtein

__all__ = [
    "Error",
    "Score",
    "Summary",
    "canonical",
    "clause_items",
    "jaccard",
    "score",
    "summarise",
]

LIST_CLAUSES = frozenset(
    """private firstprivate lastprivate shared copy copyin copyout create present
    no_create deviceptr attach detach delete device_resident link use_device
    use_device_ptr use_device_addr is_device_ptr has_device_addr reduction
    in_reduction task_reduction map linear aligned nontemporal allocate
    pcopy pcopyin pcopyout pcreate present_or_copy present_or_copyin
    present_or_copyout present_or_create host device self""".split()
)


class Error(StrEnum):
    """Why a prediction is not an exact match: the seed's taxonomy, plus refusal."""

    NO_PREDICTION = "no prediction"
    WRONG_DIRECTIVE = "wrong directive"
    CLAUSES_FULLY_WRONG = "clauses fully wrong"
    CLAUSES_PARTIALLY_WRONG = "clauses partially wrong"
    ORDER_ONLY = "order-only difference"


def canonical(text: str) -> str:
    """Pragma text with continuations joined and insignificant spaces removed."""
    joined = " ".join(re.sub(r"\\\s*\n", " ", text).split())
    return re.sub(r"\s*([()\[\],:])\s*", r"\1", joined)


def _split_top(args: str) -> list[str]:
    """Split on commas outside brackets."""
    parts: list[str] = []
    depth, start = 0, 0
    for index, ch in enumerate(args):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(args[start:index])
            start = index + 1
    parts.append(args[start:])
    return [p for p in (re.sub(r"\s+", "", p) for p in parts) if p]


def clause_items(directive: Directive) -> list[str]:
    """The clause items of a directive, in order (duplicates kept)."""
    items: list[str] = []
    for clause in directive.clauses:
        if clause.args is None:
            items.append(clause.name)
            continue
        args = clause.args
        if clause.name not in LIST_CLAUSES:
            items.append(f"{clause.name}:{''.join(args.split())}")
            continue
        prefix = ""
        # A modifier (`+:`, `to:`, `readonly:`) precedes the list; `::` is C++.
        head = re.match(r"\s*([^:\[\]()]+?)\s*:(?!:)", args)
        if head is not None:
            prefix = re.sub(r"\s+", "", head.group(1)) + ":"
            args = args[head.end() :]
        items.extend(f"{clause.name}:{prefix}{item}" for item in _split_top(args))
    return items


def jaccard(reference: Sequence[str], predicted: Sequence[str]) -> float:
    """Size of intersection over size of union of two item sets; 1.0 if both empty."""
    a, b = set(reference), set(predicted)
    return 1.0 if not a and not b else len(a & b) / len(a | b)


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    """Metrics of one prediction against its reference."""

    predicted: bool
    directive_match: bool
    jaccard: float
    similarity: float  # normalised Levenshtein similarity, 0..1
    exact: bool
    compiles: bool | None = None  # None: no prediction or no compiler
    race_free: bool | None = None  # None: no prediction
    error: Error | None = None  # None for an exact match


def score(
    reference: str,
    prediction: str | None,
    *,
    compiles: bool | None = None,
    race_free: bool | None = None,
) -> Score:
    """Text metrics and taxonomy of `prediction`; checks come from the caller."""
    if prediction is None or not prediction.strip():
        return Score(
            predicted=False,
            directive_match=False,
            jaccard=0.0,
            similarity=0.0,
            exact=False,
            error=Error.NO_PREDICTION,
        )
    ref_text, pred_text = canonical(reference), canonical(prediction)
    ref, pred = parse_directive(ref_text), parse_directive(pred_text)
    same = (
        ref is not None
        and pred is not None
        and (ref.dialect, ref.name) == (pred.dialect, pred.name)
    )
    ref_items = clause_items(ref) if ref is not None else []
    pred_items = clause_items(pred) if pred is not None else []
    overlap = jaccard(ref_items, pred_items) if pred is not None else 0.0
    exact = ref_text == pred_text
    error: Error | None = None
    if not exact:
        if not same:
            error = Error.WRONG_DIRECTIVE
        elif Counter(ref_items) == Counter(pred_items):
            error = Error.ORDER_ONLY
        elif overlap == 0.0:
            error = Error.CLAUSES_FULLY_WRONG
        else:
            error = Error.CLAUSES_PARTIALLY_WRONG
    return Score(
        predicted=True,
        directive_match=same,
        jaccard=overlap,
        similarity=float(Levenshtein.normalized_similarity(ref_text, pred_text)),
        exact=exact,
        compiles=compiles,
        race_free=race_free,
        error=error,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """One backend's metrics over a set of pairs."""

    n: int
    predicted: int
    compile_rate: float | None  # over predicted pairs; None without a compiler
    directive_match: float
    jaccard: float
    similarity: float
    exact: float
    race_free: float | None  # over predicted pairs
    errors: dict[str, int]

    def row(self) -> dict[str, float | int | None]:
        """The headline numbers, for a table."""
        return {
            "n": self.n,
            "coverage": self.predicted / self.n if self.n else 0.0,
            "compile": self.compile_rate,
            "directive": self.directive_match,
            "jaccard": self.jaccard,
            "levenshtein": self.similarity,
            "exact": self.exact,
            "race_free": self.race_free,
        }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarise(scores: Sequence[Score]) -> Summary:
    """Totals over many scores."""
    predicted = [s for s in scores if s.predicted]
    compiled = [s.compiles for s in predicted if s.compiles is not None]
    checked = [s.race_free for s in predicted if s.race_free is not None]
    errors = Counter(str(s.error) for s in scores if s.error is not None)
    return Summary(
        n=len(scores),
        predicted=len(predicted),
        compile_rate=_mean([float(c) for c in compiled]) if compiled else None,
        directive_match=_mean([float(s.directive_match) for s in scores]),
        jaccard=_mean([s.jaccard for s in scores]),
        similarity=_mean([s.similarity for s in scores]),
        exact=_mean([float(s.exact) for s in scores]),
        race_free=_mean([float(r) for r in checked]) if checked else None,
        errors={str(e): errors.get(str(e), 0) for e in Error},
    )
