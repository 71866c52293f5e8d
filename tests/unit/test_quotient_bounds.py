"""A quotient loop bound (`i < n / 2`) is tied to its dividend only where sound."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text
from accls.analysis.polyhedra import row
from accls.analysis.quotient_bounds import quotient_rows


def _fixed(name: str) -> bool:
    return name != "i"


def test_a_loop_from_zero_ties_the_quotient_to_its_dividend() -> None:
    # 0 <= i <= (n / 2) - 1: the quotient is at least 1, so n >= 2 and C's
    # truncation is the floor: 2*q <= n <= 2*q + 1.
    domain = (row({"0": 1}), row({"p:(n / 2)": 1, "0": -1}, -1))
    assert set(quotient_rows(domain, _fixed)) == {
        row({"p:n": 1, "p:(n / 2)": -2}),
        row({"p:n": -1, "p:(n / 2)": 2}, 1),
    }


def test_a_domain_that_allows_a_negative_dividend_adds_nothing() -> None:
    # -4 <= i <= (n / 2) - 1 holds for n = -3, where C gives -1, not the floor.
    domain = (row({"0": 1}, 4), row({"p:(n / 2)": 1, "0": -1}, -1))
    assert quotient_rows(domain, _fixed) == ()


def test_a_dividend_that_changes_in_the_nest_adds_nothing() -> None:
    domain = (row({"0": 1}), row({"p:(i / 2)": 1, "0": -1}, -1))
    assert quotient_rows(domain, _fixed) == ()


def test_a_symbolic_divisor_adds_nothing() -> None:
    domain = (row({"0": 1}), row({"p:(n / m)": 1, "0": -1}, -1))
    assert quotient_rows(domain, _fixed) == ()


_SWAP = """
void f(double *a, int n) {
  for (int i = LOW; i < BOUND; i++) {
    double t = a[i]; a[i] = a[n - 1 - i]; a[n - 1 - i] = t;
  }
}
"""


@pytest.mark.parametrize(
    ("low", "bound", "parallel"),
    [
        ("0", "n / 2", True),  # the two ends never meet
        ("0", "(n + 1) / 2", True),  # the middle element swaps with itself
        ("0", "n / 2 + 1", False),  # one past the half: both ends meet
        ("0", "(n + 2) / 2", False),
    ],
)
def test_reversal_up_to_a_quotient(low: str, bound: str, parallel: bool) -> None:
    text = _SWAP.replace("LOW", low).replace("BOUND", bound)
    (fact,) = analyze_text(text).facts
    assert fact.parallel is parallel
