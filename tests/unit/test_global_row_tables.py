"""A file's `static` pointer table filled in `init()` with a `malloc` per row.

Every write of a `static` global is in the file: when each store to the table
or to a row is a fresh allocation and no code copies, shares, swaps or hands
on a row (or the table, but to free or read it), its rows overlap nothing and
`g[i][k]` loops in other functions are parallel. Any other write refutes it.
"""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
void unknown(double **t);
static double **mk(int n) {
  double **t = malloc(n * sizeof *t);
  double *one = malloc(64);
  for (int i = 0; i < n; i++)
    t[i] = one;
  return t;
}
static double **alloc2d(int n, int m) {
  double **t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = malloc(m * sizeof **t);
  return t;
}
static void free2d(double **t, int n) {
  for (int i = 0; i < n; i++)
    free(t[i]);
  free(t);
}
STORAGE double **g;
static int n, m;
static void init(int rows, int cols) {
  n = rows;
  m = cols;
  INIT
}
static void other(double *x) {
  OTHER
}
void sweep(void) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      g[i][k] = g[i][k] * 0.5 + k;
}
void done(void) { free2d(g, n); }
"""

_ROWS = (
    "g = malloc(n * sizeof *g);\n  if (g == NULL) return;\n"
    "  for (int i = 0; i < n; i++) g[i] = malloc(m * sizeof **g);"
)


def _sweep_parallel(
    init: str = _ROWS, other: str = "", storage: str = "static"
) -> bool:
    text = (
        _TEXT.replace("INIT", init).replace("OTHER", other).replace("STORAGE", storage)
    )
    facts = analyze_text(text).facts
    line = next(n for n, s in enumerate(text.splitlines(), 1) if "g[i][k] =" in s)
    return next(f for f in facts if f.loop.line == line - 2).parallel


@pytest.mark.parametrize("init", [_ROWS, "g = alloc2d(n, m);"])
def test_a_static_table_of_rows_allocated_apart_is_parallel(init: str) -> None:
    assert _sweep_parallel(init)


@pytest.mark.parametrize(
    "other",
    [
        "g[1] = g[0];",  # a row shared
        "double *s = g[0]; g[0] = g[1]; g[1] = s;",  # rows swapped
        "g[0] = x;",  # a row re-pointed at another array
        "*g = x;",
        "unknown(g);",  # handed to code that may re-point rows
        "double **q = g; q[1] = q[0];",  # copied
        "g = mk(4);",  # a table whose rows its maker shares
        "g[2] = g[1] + 1;",  # a row carved out of another
    ],
)
def test_a_write_elsewhere_refutes_the_rows(other: str) -> None:
    assert not _sweep_parallel(other=other)


def test_a_table_allocated_again_elsewhere_keeps_them() -> None:
    # A fresh block of row pointers; each row stored is still its own block.
    assert _sweep_parallel(other="free(g); g = malloc(8 * sizeof *g);")


def test_a_table_other_files_may_write_is_not_proved() -> None:
    assert not _sweep_parallel(storage="")


def test_a_function_with_a_local_of_the_name_refutes_the_table() -> None:
    # Which `g` each use means is not followed: the global is not proved.
    shadowed = "double **g = malloc(8); g[1] = g[0]; free(g);"
    assert not _sweep_parallel(init=shadowed)


def test_a_macro_that_names_the_table_refutes_it() -> None:
    # `FIRST_ROW = x;` stores a row where the parser sees no `g`.
    storage = "#define FIRST_ROW g[0]\nstatic"
    assert not _sweep_parallel(other="FIRST_ROW = x;", storage=storage)
