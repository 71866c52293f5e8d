"""Index arrays a two-deep nest fills, read over each iteration's own range."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

_SCATTER = """\
#define ROWS 200
#define NNZ 3
int col[ROWS * NNZ];
double val[ROWS * NNZ], x[ROWS], y[ROWS * NNZ];
void f(void) {
  for (int r = 0; r < ROWS; r++)
    for (int k = 0; k < NNZ; k++)
      col[r * NNZ + k] = {value};
  #pragma omp parallel for
  for (int r = 0; r < ROWS; r++)
    for (int k = r * NNZ; k < (r + 1) * NNZ; k++)
      {update};
}
"""


def _errors(value: str, update: str = "y[col[k]] += val[k] * x[r]") -> list[str]:
    src = _SCATTER.replace("{value}", value).replace("{update}", update)
    found = check_file(src, "t.c")
    return [f.code for f in found if f.level.name == "ERROR"]


@pytest.mark.parametrize("value", ["(r + k) % ROWS", "k", "r / 2"])
def test_values_that_repeat_across_rows_race(value: str) -> None:
    assert _errors(value) == ["ACC101"]


@pytest.mark.parametrize("value", ["r * NNZ + k", "r"])
def test_values_of_each_rows_own_do_not_race(value: str) -> None:
    assert _errors(value) == []


def test_a_guarded_update_is_no_sure_race() -> None:
    update = "if (val[k] > 0.0) y[col[k]] += val[k]"
    assert _errors("(r + k) % ROWS", update) == []
