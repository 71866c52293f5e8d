"""`rows(nr, std::vector<double>(nc))`: a table of rows, not a function declaration."""

from __future__ import annotations

from accls.analysis import analyze_text

_TEXT = """
#include <vector>
double run() {
  const int nr = 40, nc = 8;
  std::vector<std::vector<double>> rows(nr, std::vector<double>(nc));
  std::vector<double> out(nr);
  for (int r = 0; r < nr - 1; ++r) {
    BODY
  }
  return out[0];
}
"""


def _parallel(body: str) -> bool:
    (fact,) = analyze_text(_TEXT.replace("BODY", body), path="t.cpp").facts
    return fact.parallel


def test_rows_built_from_a_temporary_are_a_table_of_rows() -> None:
    assert _parallel("out[r] = rows[r][0] + rows[r][nc - 1];")


def test_a_write_to_the_next_row_is_still_carried() -> None:
    assert not _parallel("rows[r + 1][0] = rows[r][0] + 1.0;")
