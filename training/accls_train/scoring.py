"""The validator as a reward: a candidate compiles, is race-free, matches the clauses.

    reward = w_c * compiles + w_r * race_free + w_j * jaccard

`compiles` is 1 when gcc accepts the unit with the candidate above the loop
(unknowable units fall back to the candidate parsing as a pragma of the pair's
model); `race_free` is 1 with no race or data finding from `accls check`, 0.5
with warnings only, 0 with an error; `jaccard` is the clause Jaccard with the
reference (`metrics.score`, the evaluation's measure). A candidate that is not
a pragma of the pair's model scores 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.findings import Category, Severity
from accls.pipeline import check_text
from accls.suggest import Dialect, parse_pragma
from accls.suggest.prompt import completion_pragma

from accls_train.dataset import DatasetError, Pair, insert_pragma
from accls_train.metrics import score
from accls_train.syntax import pragma_compiles

__all__ = ["RewardParts", "RewardWeights", "clause_jaccard", "reward", "reward_parts"]


@dataclass(frozen=True, slots=True)
class RewardWeights:
    """How much each term counts; the defaults sum to 1."""

    compiles: float = 0.3
    race_free: float = 0.3
    jaccard: float = 0.4


@dataclass(frozen=True, slots=True)
class RewardParts:
    """The three terms of one candidate's reward, each in [0, 1]."""

    compiles: float
    race_free: float
    jaccard: float

    def total(self, weights: RewardWeights) -> float:
        """The weighted sum."""
        return (
            weights.compiles * self.compiles
            + weights.race_free * self.race_free
            + weights.jaccard * self.jaccard
        )


def clause_jaccard(candidate: str, reference: str) -> float:
    """Clause-item Jaccard of the two pragmas, as the evaluation measures it."""
    return score(reference, candidate).jaccard


def _race_free(unit: str) -> float:
    findings = [
        f
        for f in check_text(unit, "unit.c")
        if f.kind.category in (Category.RACE, Category.RESULT, Category.DATA)
    ]
    if any(f.level is Severity.ERROR for f in findings):
        return 0.0
    return 0.5 if findings else 1.0


def reward_parts(pair: Pair, candidate: str, cc: str = "gcc") -> RewardParts:
    """Score `candidate` (a completion) against `pair`'s unit and reference."""
    line = completion_pragma(candidate)
    pragma = parse_pragma(line) if line is not None else None
    if line is None or pragma is None or pragma.dialect is not Dialect(pair.model):
        return RewardParts(0.0, 0.0, 0.0)
    compiled = pragma_compiles(pair, line, cc)
    if compiled is False:
        return RewardParts(0.0, 0.0, clause_jaccard(line, pair.pragma))
    try:
        unit = insert_pragma(pair.mcu, pair.line, line)
    except DatasetError:
        return RewardParts(1.0, 0.0, clause_jaccard(line, pair.pragma))
    return RewardParts(1.0, _race_free(unit), clause_jaccard(line, pair.pragma))


def reward(
    pair: Pair, candidate: str, weights: RewardWeights | None = None, cc: str = "gcc"
) -> float:
    """The candidate's reward in [0, 1] (see the module docstring)."""
    return reward_parts(pair, candidate, cc).total(weights or RewardWeights())
