"""The validator as a reward: a correct pragma outranks a racy and a broken one."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from accls_train.dataset import Pair
from accls_train.scoring import RewardParts, RewardWeights, clause_jaccard, reward_parts

Need = Callable[[str], str]

SUM = (
    "double sum(int n, const double *x) {\n"
    "  double s = 0.0;\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    s += x[i];\n"
    "  }\n"
    "  return s;\n"
    "}\n"
)


def pair(model: str, pragma: str) -> Pair:
    return Pair(
        id="sum",
        repo="tests",
        path="sum.c",
        line=3,
        model=model,
        target="cpu" if model == "openmp" else "gpu",
        pragma=pragma,
        loop="",
        mcu=SUM,
    )


OMP = pair("openmp", "#pragma omp parallel for reduction(+:s)")
ACC = pair("openacc", "#pragma acc parallel loop reduction(+:s) copyin(x[0:n])")


def test_parts_of_good_racy_and_broken_openmp_pragmas(need: Need) -> None:
    need("gcc")
    assert reward_parts(OMP, "#pragma omp parallel for reduction(+: s)") == (
        RewardParts(1.0, 1.0, 1.0)
    )
    # Compiles, but `s` is shared and updated by every thread: a race.
    assert reward_parts(OMP, "#pragma omp parallel for") == RewardParts(1.0, 0.0, 0.0)
    # An empty reduction list does not compile.
    assert reward_parts(OMP, "#pragma omp parallel for reduction(+:)").compiles == 0.0
    # A pragma of the other model, or no pragma at all, scores nothing.
    assert reward_parts(OMP, "#pragma acc parallel loop") == RewardParts(0, 0, 0)
    assert reward_parts(OMP, "for (int i = 0;") == RewardParts(0, 0, 0)


def test_correct_outranks_racy_outranks_broken(need: Need) -> None:
    need("gcc")
    weights = RewardWeights()
    for ref, good, racy, broken in (
        (
            OMP,
            "#pragma omp parallel for reduction(+:s)",
            "#pragma omp parallel for",
            "#pragma omp parallel for reduction(+:s",
        ),
        (
            ACC,
            "#pragma acc parallel loop reduction(+:s) copyin(x[0:n])",
            "#pragma acc parallel loop copyin(x[0:n])",
            "#pragma acc parallel loop reduction(+:) copyin(x[0:n])",
        ),
    ):
        scores = [reward_parts(ref, c).total(weights) for c in (good, racy, broken)]
        assert scores[0] == pytest.approx(1.0)
        assert scores[0] > scores[1] > scores[2], (ref.model, scores)


def test_openacc_race_warning_counts_half(need: Need) -> None:
    need("gcc")
    # OpenACC compilers may find the reduction themselves: accls warns, not errs.
    parts = reward_parts(ACC, "#pragma acc parallel loop copyin(x[0:n])")
    assert parts.compiles == 1.0
    assert parts.race_free == 0.5


def test_clause_jaccard_by_hand() -> None:
    ref = "#pragma acc parallel loop reduction(+:s) copyin(x[0:n], y[0:n])"
    # items: reduction:+:s, copyin:x[0:n], copyin:y[0:n]
    assert clause_jaccard("#pragma acc parallel loop copyin(y[0:n])", ref) == (
        pytest.approx(1 / 3)
    )
    assert clause_jaccard(
        "#pragma acc parallel loop reduction(+:s) copyin(x[0:n]) gang", ref
    ) == pytest.approx(2 / 4)
    assert clause_jaccard("#pragma omp simd", "#pragma omp simd") == 1.0
