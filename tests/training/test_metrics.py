"""Metrics against values worked out by hand on six (reference, prediction) pairs."""

from __future__ import annotations

import pytest
from accls.frontend import parse_directive
from accls_train.metrics import (
    Error,
    canonical,
    clause_items,
    jaccard,
    score,
    summarise,
)

# (reference, prediction, expected error or None for an exact match)
CASES: list[tuple[str, str | None, Error | None]] = [
    (
        "#pragma acc parallel loop copyin(a[0:n], b[0:n]) copyout(c[0:n])",
        "#pragma acc parallel loop  copyin( a[0:n],b[0:n] ) copyout(c[0:n])",
        None,
    ),
    (
        "#pragma omp parallel for private(j) reduction(+:s)",
        "#pragma omp parallel for reduction(+: s) private(j)",
        Error.ORDER_ONLY,
    ),
    (
        "#pragma acc parallel loop gang",
        "#pragma acc parallel loop vector",
        Error.CLAUSES_FULLY_WRONG,
    ),
    (
        "#pragma acc parallel loop copyin(a,b) copyout(c)",
        "#pragma acc parallel loop copyin(a) copyout(c) private(t)",
        Error.CLAUSES_PARTIALLY_WRONG,
    ),
    ("#pragma acc kernels loop", None, Error.NO_PREDICTION),
    ("#pragma omp for", "#pragma omp simd", Error.WRONG_DIRECTIVE),
]


def item_list(text: str) -> list[str]:
    directive = parse_directive(text)
    assert directive is not None
    return clause_items(directive)


def test_canonical_text_ignores_spacing_and_continuations() -> None:
    text = "#pragma  acc parallel loop \\\n   copyin( a[0 : n] , b )"
    assert canonical(text) == "#pragma acc parallel loop copyin(a[0:n],b)"


@pytest.mark.parametrize(
    ("pragma", "items"),
    [
        ("#pragma acc loop copyin(a[0:n], b)", ["copyin:a[0:n]", "copyin:b"]),
        ("#pragma omp for reduction(+: s, t)", ["reduction:+:s", "reduction:+:t"]),
        ("#pragma omp for schedule(static, 4)", ["schedule:static,4"]),
        ("#pragma omp target map(tofrom: a[0:n][0:m])", ["map:tofrom:a[0:n][0:m]"]),
        ("#pragma acc loop gang vector collapse(2)", ["gang", "vector", "collapse:2"]),
        ("#pragma acc loop copy(a[i:n])", ["copy:a[i:n]"]),
    ],
)
def test_clause_items(pragma: str, items: list[str]) -> None:
    assert item_list(pragma) == items


def test_jaccard_by_hand() -> None:
    assert jaccard([], []) == 1.0
    assert jaccard(["a"], []) == 0.0
    assert (
        jaccard(
            ["copyin:a", "copyin:b", "copyout:c"],
            ["copyin:a", "copyout:c", "private:t"],
        )
        == 0.5
    )


@pytest.mark.parametrize(("reference", "prediction", "error"), CASES)
def test_taxonomy(reference: str, prediction: str | None, error: Error | None) -> None:
    result = score(reference, prediction)
    assert result.error == error
    assert result.exact is (error is None)


def test_per_pair_values_by_hand() -> None:
    exact, order, fully, partial, none, wrong = (score(r, p) for r, p, _ in CASES)
    assert (exact.jaccard, exact.similarity) == (1.0, 1.0)
    assert order.jaccard == 1.0
    assert order.directive_match
    # "gang" -> "vector" shares no letter: 6 edits over the 32 characters.
    assert fully.jaccard == 0.0
    assert fully.similarity == pytest.approx(1 - 6 / 32)
    # {copyin:a, copyin:b, copyout:c} vs {copyin:a, copyout:c, private:t}
    assert partial.jaccard == 0.5
    assert (none.predicted, none.similarity, none.jaccard) == (False, 0.0, 0.0)
    # "for" -> "simd": 4 edits over 16 characters; no clauses on either side.
    assert wrong.similarity == pytest.approx(0.75)
    assert wrong.jaccard == 1.0
    assert not wrong.directive_match


def test_summary_by_hand() -> None:
    flags = [
        (True, True),
        (True, False),
        (False, True),
        (True, True),
        (None, None),
        (True, True),
    ]
    scores = [
        score(r, p, compiles=c, race_free=f)
        for (r, p, _), (c, f) in zip(CASES, flags, strict=True)
    ]
    total = summarise(scores)
    assert total.n == 6
    assert total.predicted == 5
    assert total.exact == pytest.approx(1 / 6)
    assert total.directive_match == pytest.approx(4 / 6)
    assert total.jaccard == pytest.approx((1 + 1 + 0 + 0.5 + 0 + 1) / 6)
    # Compile and race-free rates count predicted pairs only.
    assert total.compile_rate == pytest.approx(4 / 5)
    assert total.race_free == pytest.approx(4 / 5)
    assert total.errors == {
        "no prediction": 1,
        "wrong directive": 1,
        "clauses fully wrong": 1,
        "clauses partially wrong": 1,
        "order-only difference": 1,
    }
