"""A subscript that runs past its row (`a[i][j + 1]` at `j == M - 1`) lands in
the next row also when the rows are reached through a pointer to rows, a struct's
field or a typedef: the per-dimension dependence test must not call it parallel."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
#define N 300
#define M 200
struct G { double a[N][M]; } g;
typedef double row_t[M];
typedef double grid_t[N][M];
grid_t gg;
struct G gs[4];
void rows_param(double (*a)[M], int n) {
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < M; j++) a[i][j + OFF] = a[i][j] * 0.5 + 1;
}
void rows_vla(int n, int m) {
  double (*a)[m] = malloc(sizeof(double) * n * m);
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < m; j++) a[i][j + OFF] = a[i][j] * 0.5 + 1;
  free(a);
}
void field(void) {
  for (int i = 0; i < N - 1; i++)
    for (int j = 0; j < M; j++) g.a[i][j + OFF] = g.a[i][j] * 0.5 + 1;
}
void typedef_rows(row_t *a, int n) {
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < M; j++) a[i][j + OFF] = a[i][j] * 0.5 + 1;
}
void typedef_grid(void) {
  for (int i = 0; i < N - 1; i++)
    for (int j = 0; j < M; j++) gg[i][j + OFF] = gg[i][j] * 0.5 + 1;
}
void field_of_an_element(int k) {
  for (int i = 0; i < N - 1; i++)
    for (int j = 0; j < M; j++) gs[k].a[i][j + OFF] = gs[k].a[i][j] * 0.5 + 1;
}
"""


def _outer_loops(off: int):  # type: ignore[no-untyped-def]
    facts = analyze_text(dedent(_TEXT).replace("OFF", str(off))).facts
    return [f for f in facts if f.loop.var == "i"]


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4, 5])
def test_a_subscript_past_the_row_blocks_the_outer_loop(index: int) -> None:
    fact = _outer_loops(1)[index]
    assert not fact.parallel
    assert any("into the next row" in o.message for o in fact.obstacles)


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4, 5])
def test_a_subscript_within_the_row_stays_parallel(index: int) -> None:
    assert _outer_loops(0)[index].parallel
