"""A table parameter's rows, apart from other memory when calls pass fresh rows."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.project import ProjectIndex
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

KERNEL = """
#include <stdio.h>
#include <stdlib.h>
#define N 64
static double totals[N];
%s void sum_rows(double **a, double **c, double *b, int n) {
  %s
  for (int x = 0; x < n; x++) {
    double s = 0.0;
    for (int y = 0; y < n; y++)
      s += a[x][y];
    b[x] = s;
  }
}
"""

MAIN = """
int main(void) {
  double **t = malloc(N * sizeof(double *));
  double **u = malloc(N * sizeof(double *));
  double out[N];
  for (int i = 0; i < N; i++) {
    t[i] = malloc(N * sizeof(double));
    u[i] = malloc(N * sizeof(double));
    for (int j = 0; j < N; j++) {
      t[i][j] = i + 0.5 * j;
      u[i][j] = j;
    }
  }
  %s
  double sum = 0.0;
  for (int i = 0; i < N; i++) sum += out[i] + totals[i];
  printf("%%.3f\\n", sum);
  return 0;
}
"""


def _sum_rows(calls: str, head: str = "static", body: str = "") -> LoopFacts:
    text = KERNEL % (head, body) + MAIN % calls
    found = analyze_text(text).facts
    return next(f for f in found if f.loop.function == "sum_rows" and f.loop.var == "x")


def _why(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    "calls",
    [
        "sum_rows(t, u, out, N);",  # a local array of the caller
        "sum_rows(t, u, totals, N);",  # a global array
        "sum_rows(t, u, u[3], N); sum_rows(t, u, out, N);",  # a row of another table
    ],
)
def test_rows_of_a_table_of_fresh_blocks_miss_the_written_array(calls: str) -> None:
    fact = _sum_rows(calls)
    assert fact.parallel, _why(fact)
    assert any("the rows of `a` never overlap `b`" in p for p in fact.assumptions)


@pytest.mark.parametrize(
    "calls",
    [
        "sum_rows(t, u, t[0], N);",  # a row of the table itself
        "sum_rows(t, t, out, N);",  # the table twice: `c` may re-point a row
        "sum_rows(u, t, out, N); sum_rows(t, t, out, N);",
    ],
)
def test_a_call_that_reaches_the_rows_stays_refused(calls: str) -> None:
    fact = _sum_rows(calls)
    assert not fact.parallel


def test_rows_carved_from_one_block_stay_refused() -> None:
    calls = """
  double *blk = malloc(N * N * sizeof(double));
  double **v = malloc(N * sizeof(double *));
  for (int i = 0; i < N; i++) v[i] = blk + i * N;
  sum_rows(v, u, blk, N);
  sum_rows(t, u, out, N);
"""
    assert not _sum_rows(calls).parallel


@pytest.mark.parametrize(
    "body",
    [
        "a[0] = b;",  # the callee re-points a row at the written array
        "c[0] = b;",  # harmless here, but through `c` when a call passes `t` twice
        "double **p = a; p[1] = b;",
    ],
)
def test_a_callee_that_may_re_point_a_row_stays_refused(body: str) -> None:
    twice = body.startswith("c")
    calls = "sum_rows(t, t, out, N);" if twice else "sum_rows(t, u, out, N);"
    assert not _sum_rows(calls, body=body).parallel


def test_an_external_kernel_without_the_program_stays_refused() -> None:
    assert not _sum_rows("sum_rows(t, u, out, N);", head="").parallel


def test_the_program_index_shows_every_call_of_an_external_kernel(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    path = root / "rows.c"
    path.write_text(KERNEL % ("", "") + MAIN % "sum_rows(t, u, out, N);")
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    options = AnalysisOptions(program=index.program_for(str(path)))
    found = analyze_text(path.read_text(), str(path), options=options).facts
    fact = next(f for f in found if f.loop.function == "sum_rows" and f.loop.var == "x")
    assert fact.parallel, _why(fact)


def test_the_annotated_program_prints_the_serial_output(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    src = tmp_path / "rows.c"
    calls = "sum_rows(t, u, out, N); sum_rows(u, t, totals, N);"
    src.write_text(KERNEL % ("static", "") + MAIN % calls)
    serial = tmp_path / "serial"
    build_program(gcc, src, serial)
    out = tmp_path / "rows.omp.c"
    proc = run_accls("annotate", "--model", "openmp", "--all", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    lines = text.split("\n")
    kernel = next(i for i, t in enumerate(lines) if "for (int x = 0; x < n;" in t)
    assert "omp parallel for" in lines[kernel - 1], text
    exe = tmp_path / "annotated"
    build_program(gcc, out, exe, "-fopenmp")
    for threads in (1, 4):
        assert compare_text(run_program(serial), run_program(exe, threads), 0.0) is None


ADD = """
#include <stdlib.h>
#define N 64
static void add(double *a, double *b, double *c) {
  for (int x = 0; x < N; x++)
    c[x] = a[x] + b[x];
}
int main(void) {
  double **t = malloc(N * sizeof(double *));
  double **u = malloc(N * sizeof(double *));
  for (int i = 0; i < N; i++) {
    t[i] = malloc(N * sizeof(double));
    u[i] = calloc(N, sizeof(double));
  }
  double *w = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++)
    %s
  return 0;
}
"""


@pytest.mark.parametrize(
    ("call", "apart"),
    [
        ("add(t[i], u[i], w);", True),  # rows of two tables and a fresh block
        ("add(t[i], w, u[i]);", True),
        ("add(t[i], u[i], t[i]);", False),  # one row twice
        ("add(t[i], u[i], t[(i + 1) % N]);", False),  # two rows of one table
    ],
)
def test_rows_passed_as_arguments_are_blocks_of_their_own(
    call: str, apart: bool
) -> None:
    found = analyze_text(ADD % call).facts
    fact = next(f for f in found if f.loop.function == "add")
    assert fact.parallel is apart, _why(fact)
