"""Inner trip counts that vary with the outer variable (schedule(dynamic)), and not."""

from __future__ import annotations

import pytest
from accls.frontend import parse_source
from accls.suggest.nest_shape import imbalance

_TEXT = """
#define W 64
void f(int n, int m, const int *row, double *u) {
  for (int i = 0; i < n; i++)
    for (int j = LOWER; j < UPPER; j++)
      u[j] += 1.0;
}
"""


def _imbalance(lower: str, upper: str) -> str:
    text = _TEXT.replace("LOWER", lower).replace("UPPER", upper)
    return imbalance(parse_source(text).nests[0])


@pytest.mark.parametrize(
    ("lower", "upper"),
    [("W*i", "W*i + W"), ("W*i", "(i + 1)*W"), ("m*i", "m*i + m"), ("i", "i + 4")],
)
def test_a_window_that_moves_with_the_outer_variable_is_even(
    lower: str, upper: str
) -> None:
    assert _imbalance(lower, upper) == ""


@pytest.mark.parametrize(
    ("lower", "upper"), [("0", "i"), ("i", "n"), ("i", "2*i"), ("W*i", "W*i + i")]
)
def test_a_count_that_grows_with_the_outer_variable_is_triangular(
    lower: str, upper: str
) -> None:
    assert _imbalance(lower, upper) == "triangular"


def test_a_count_read_from_memory_is_data() -> None:
    assert _imbalance("row[i]", "row[i + 1]") == "data"
