"""`std::accumulate`, `inner_product`, `max_element` over a row: reads of that row."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <algorithm>
#include <numeric>
#include <vector>
struct Vec { double x; Vec operator+(const Vec &o) const; };
double run(int n) {
  std::vector<std::vector<double>> rows(n, std::vector<double>(8, 1.0));
  std::vector<double> flat(8 * n + 16, 1.0), out(n);
  std::vector<Vec> objs(8 * n);
  for (int r = 0; r < n - 1; ++r) {
    BODY
  }
  return out[0];
}
"""


def _parallel(body: str) -> bool:
    (fact,) = analyze_text(_TEXT.replace("BODY", body), path="t.cpp").facts
    return fact.parallel


@pytest.mark.parametrize(
    "body",
    [
        "out[r] = std::accumulate(rows[r].begin(), rows[r].end(), 0.0);",
        "out[r] = *std::max_element(rows[r].begin(), rows[r].end());",
        "out[r] = std::inner_product(rows[r].begin(), rows[r].end(), "
        "rows[r + 1].begin(), 0.0);",
        "out[r] = std::accumulate(flat.begin() + 8 * r, flat.begin() + 8 * r + 8, "
        "0.0);",
    ],
)
def test_a_range_reduction_over_a_row_is_parallel(body: str) -> None:
    assert _parallel(body)


@pytest.mark.parametrize(
    "body",
    [
        # The next row is written: the reading iteration races with it.
        "rows[r + 1][3] = std::accumulate(rows[r].begin(), rows[r].end(), 0.0);",
        "flat[8 * r + 9] = std::accumulate(flat.begin() + 8 * r, "
        "flat.begin() + 8 * r + 8, 0.0);",
        # A caller's operation, and objects whose operator+ is unseen.
        "out[r] = std::accumulate(rows[r].begin(), rows[r].end(), 0.0, "
        "[](double a, double b) { return a + b; });",
        "out[r] = std::accumulate(objs.begin(), objs.end(), Vec{0.0}).x;",
        "std::fill(flat.begin(), flat.end(), out[r]);",
    ],
)
def test_a_range_reduction_that_meets_a_write_is_refused(body: str) -> None:
    assert not _parallel(body)
