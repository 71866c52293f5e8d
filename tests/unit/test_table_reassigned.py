"""A pointer table whose rows were allocated apart, then set to another table."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
void f(double **q, int n, int m) {
  double **t = malloc(n * sizeof(double *));
  for (int i = 0; i < n; i++)
    t[i] = malloc(m * sizeof(double));
  AFTER
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      t[i][k] = t[i][k] + 1.0;
}
"""


def _row_loop_parallel(after: str) -> bool:
    facts = analyze_text(_TEXT.replace("AFTER", after)).facts
    return next(f for f in facts if f.loop.line == 8).parallel


def test_rows_allocated_apart_are_parallel() -> None:
    assert _row_loop_parallel("")


def test_a_table_set_to_another_table_loses_its_fresh_rows() -> None:
    # `q`'s rows may all point into one buffer: the rows of `t` are `q`'s now.
    assert not _row_loop_parallel("t = q;")


def test_a_table_allocated_again_and_filled_keeps_them() -> None:
    again = (
        "t = malloc(n * sizeof(double *));\n"
        "  for (int i = 0; i < n; i++) t[i] = malloc(8);"
    )
    assert _row_loop_parallel(again)


@pytest.mark.parametrize(
    "after",
    [
        "*t = q[0];",  # the first row is `q`'s now, through the table's pointer
        "*(t + 1) = q[0];",
        "double **p = t; p[1] = p[0];",  # a copy of the table shares a row
    ],
)
def test_a_row_set_another_way_loses_the_fresh_rows(after: str) -> None:
    assert not _row_loop_parallel(after)


def test_an_element_stored_through_the_table_keeps_them() -> None:
    assert _row_loop_parallel("**t = 1.0;")
