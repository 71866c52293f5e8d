"""A helper that returns a table of rows each allocated apart (`alloc2d`).

`double **b = alloc2d(n, m)` has rows that overlap nothing, as a table filled
by `b[i] = malloc(..)` in the loop's own function has. A helper that shares
a row, swaps two, hands the table to a call, or returns another table is no
row-table wrapper, and a caller that re-points, copies or passes its table
loses the fact.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "row_tables"

_HELPER = """
#include <stdlib.h>
void unknown(double **t);
static void free2d(double **t, int n) {
  for (int i = 0; i < n; i++)
    free(t[i]);
  free(t);
}
static void show(double **t, int n) {
  for (int i = 0; i < n; i++)
    if (t[i] != 0) unknown(0);
}
static void rotate(double **t) {
  double *s = t[0];
  t[0] = t[1];
  t[1] = s;
}
static void keep(double **t) { t[0] = t[1] + 1; }
static void relay(double **t) { rotate(t); }
static void plant(double **t, double *x) { t[0] = x; }
static double **alloc2d(int n, int m) {
  double **t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = malloc(m * sizeof **t);
  HELPER
  return t;
}
void f(int n, int m) {
  double **b = alloc2d(n, m);
  CALLER
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      b[i][k] = b[i][k] + 1.0;
}
"""


def _row_loop_parallel(helper: str = "", caller: str = "", text: str = _HELPER) -> bool:
    source = text.replace("HELPER", helper).replace("CALLER", caller)
    facts = analyze_text(source).facts
    line = next(n for n, s in enumerate(source.splitlines(), 1) if "b[i][k] =" in s)
    return next(f for f in facts if f.loop.line == line - 2).parallel


@pytest.mark.parametrize("caller", ["", "free2d(b, n);", "show(b, n);"])
def test_rows_allocated_apart_in_a_helper_are_parallel(caller: str) -> None:
    # Calls that only free or read the rows leave them apart.
    assert _row_loop_parallel(caller=caller)


@pytest.mark.parametrize(
    "helper",
    [
        "t[1] = t[0];",  # a row shared
        "double *s = t[0]; t[0] = t[1]; t[1] = s;",  # rows swapped
        "unknown(t);",  # the table handed to code that may re-point rows
        "double **q = t; q[1] = q[0];",  # a copy of the table shares a row
        "t[0] = t[1] + 1;",  # a row carved out of another
        "rotate(t);",
    ],
)
def test_a_helper_that_may_share_rows_is_no_row_table(helper: str) -> None:
    assert not _row_loop_parallel(helper=helper)


@pytest.mark.parametrize(
    "caller",
    [
        "b[1] = b[0];",
        "double *s = b[0]; b[0] = b[1]; b[1] = s;",
        "unknown(b);",
        "double **q = b; q[2] = q[0];",
        "rotate(b);",  # a callee that swaps two rows
        "keep(b);",  # one that carves a row out of another
        "relay(b);",  # one that hands the table to a swapper
        "plant(b, b[1] + 2);",  # one that stores a row it is given (never keeps b)
    ],
)
def test_a_caller_that_may_share_rows_loses_them(caller: str) -> None:
    assert not _row_loop_parallel(caller=caller)


_CARVED = """
#include <stdlib.h>
static double **alloc2d(int n, int m) {
  double **t = malloc(n * sizeof *t);
  double *blk = malloc(n * m * sizeof *blk);
  for (int i = 0; i < n; i++)
    t[i] = blk + i * m;
  return t;
}
void f(int n, int m) {
  double **b = alloc2d(n, m);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      b[i][k] = b[i][k] + 1.0;
}
"""


def test_rows_carved_from_one_block_are_not_proved_apart() -> None:
    # The carve's stride is not checked against the rows' lengths yet.
    assert not _row_loop_parallel(text=_CARVED)


_RETURNS_PARAM = """
#include <stdlib.h>
static double **rows_of(double **q, int n) {
  double **t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = q[0];
  return t;
}
void f(double **q, int n, int m) {
  double **b = rows_of(q, n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      b[i][k] = b[i][k] + 1.0;
}
"""


def test_a_helper_whose_rows_are_one_pointer_is_no_row_table() -> None:
    assert not _row_loop_parallel(text=_RETURNS_PARAM)


def test_the_jacobi_fixture_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = FIXTURE / "alloc2d_jacobi.c"
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "alloc2d_jacobi.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    # The row-table sweeps (fill, two Jacobi steps, weights) and the checksum.
    assert text.count("omp for") + text.count("omp parallel for") >= 5, text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    for threads in (1, 4):
        # The checksum is a sum: its last digit may move with the threads.
        problem = compare_text(run_program(serial), run_program(exe, threads), 1e-12)
        assert problem is None, f"{problem}\n{text}"


_WRAPPED = """
#include <stdlib.h>
static double **shared_rows(int n) {
  double **t = malloc(n * sizeof *t);
  double *one = malloc(64 * sizeof *one);
  for (int i = 0; i < n; i++)
    t[i] = one;
  return t;
}
void f(int n, int m) {
  double **b = shared_rows(n);
  b[0] = malloc(m * sizeof **b);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      b[i][k] = b[i][k] + 1.0;
}
"""


def test_a_wrappers_table_with_one_row_stored_afresh_keeps_the_others_shared() -> None:
    # `shared_rows` returns a fresh block, but every row in it is `one`.
    assert not _row_loop_parallel(text=_WRAPPED)


def test_a_callee_whose_macro_may_store_a_row_is_not_steady() -> None:
    text = "#define FIRST_ROW t[0]\n" + _HELPER.replace(
        "static void plant(",
        "static void by_macro(double **t) { FIRST_ROW = 0; }\nstatic void plant(",
    )
    assert not _row_loop_parallel(caller="by_macro(b);", text=text)
