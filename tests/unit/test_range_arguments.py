"""Library calls on flat ranges: `qsort(&a[i*m], m, ..)` writes a[i*m .. i*m+m-1]."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from accls.analysis import analyze_text
from accls.validation.outputs import compare_text

ROOT = Path(__file__).resolve().parents[2]

HEAD = """\
#include <stdlib.h>
#include <string.h>
static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}
void run(int n, int m, double *restrict a, const double *restrict b) {
  for (int i = 0; i < n; i++) {
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n  }}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    reasons = " ".join(
        [
            *(o.message for o in loop.obstacles),
            *loop.call_effects,
            *(d.reason for d in loop.dependences),
        ]
    )
    return loop.parallel, reasons


@pytest.mark.parametrize(
    "body",
    [
        "memcpy(&a[i*m], &b[i*m], m*sizeof(double));",
        "memcpy(&a[i*m], &b[i*m], sizeof(double) * m);",
        "memset(&(a[m*i]), 0, m * sizeof a[0]);",
        "memmove(&a[(i+1)*m], &b[i*m], m * sizeof(double));",
        "memset(&a[i*m], 0, m * sizeof *a);",
        "qsort(&(a[i*m]), m, sizeof(double), cmp);",
        "for (int j = 0; j < m; j++) a[i*m + j] = b[j];"
        " qsort(&a[i*m], m, sizeof a[0], cmp);",
        "memset(&a[4*i], 0, 4 * sizeof(double));",
        # A pointer plus an offset, and a size named by the other argument.
        "memcpy(a + i*m, b + i*m, m * sizeof(double));",
        "memcpy((a + m*i), &b[i*m], sizeof(double) * m);",
        "memcpy(&a[i*m], &b[i*m], m * sizeof *a);",
        # In an inner loop, and under a condition.
        "for (int j = 0; j < m; j++) memset(&a[(i*m + j)*4], 0, 4 * sizeof(double));",
        "if (b[i] > 0) memset(&a[i*m], 0, m * sizeof(double));",
    ],
)
def test_a_range_of_its_own_row_is_private_to_the_iteration(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why
    assert "writes only the row" in why


@pytest.mark.parametrize(
    "body",
    [
        # One element more than the row: it reaches the next iteration's row.
        "memcpy(&a[i*m], &b[i*m], (m+1)*sizeof(double));",
        # Rows of m, starting every element: they overlap.
        "memset(&a[i], 0, m*sizeof(double));",
        "memset(&a[4*i], 0, 5 * sizeof(double));",
        # The loop itself writes into the next row.
        "a[i*m + m] = 1.0; qsort(&a[i*m], m, sizeof(double), cmp);",
        # A byte count of another type is not read.
        "memset(&a[i*m], 0, m*sizeof(float));",
        # The count changes in the loop.
        "memset(&a[i*m], 0, m*sizeof(double)); m = m + 1;",
        # The whole row from i*m on, not m elements.
        "memset(&a[i*m], 0, sizeof a);",
        # Offsets one apart, m long; and an offset the loop sets.
        "memset(a + i, 0, m * sizeof(double));",
        "int k = i * m; memset(a + k, 0, (m + 1) * sizeof(double));",
        # Two elements from `j`, in an inner loop: the last reaches the next row.
        "for (int j = 0; j < m; j++) memset(&a[i*m + j], 0, 2 * sizeof(double));",
        # `a` twice in one call: which argument is which is not told apart.
        "memmove(a + i*m, a + i*m + m, m * sizeof(double));",
        "memmove(&a[i*m], &a[i*m], (m + 1) * sizeof(double));",
    ],
)
def test_a_range_that_may_meet_another_iteration_keeps_the_loop_serial(
    body: str,
) -> None:
    parallel, why = _verdict(body)
    assert not parallel, why


def test_a_read_range_written_by_another_iteration_is_a_dependence() -> None:
    # `memcpy(&a[i*m], &a[(i+1)*m], ..)` reads the row the next iteration writes.
    parallel, why = _verdict("memcpy(&a[i*m], &a[(i+1)*m], m*sizeof(double));")
    assert not parallel, why


PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *x, const void *y) {
  long a = *(const long *)x, b = *(const long *)y;
  return (a > b) - (a < b);
}
int main(void) {
  int n = 2000, m = 9;
  long *col = malloc(sizeof(long) * n * m);
  double *val = malloc(sizeof(double) * n * m);
  double *copy = malloc(sizeof(double) * n * m);
  for (int row = 0; row < n; row++) {
    for (int k = 0; k < m; k++) col[row*m + k] = (row * 7919L + k * 104729L) % 1000;
    qsort(&(col[row*m]), m, sizeof(long), cmp);
    for (int e = row*m; e < (row+1)*m; e++) val[e] = 1.0 / (double)(col[e] + 1);
  }
  for (int row = 0; row < n; row++)
    memcpy(&copy[row*m], &val[row*m], m * sizeof(double));
  double sum = 0.0;
  long check = 0;
  for (int e = 0; e < n*m; e++) {
    sum += copy[e] * (e % 13);
    check += col[e] * (e % 7);
  }
  printf("%.12f %ld\\n", sum, check);
  free(col); free(val); free(copy);
  return 0;
}
"""


def test_annotated_ranges_run_like_the_serial_program(tmp_path: Path) -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not found")
    src = tmp_path / "ranges.c"
    src.write_text(PROGRAM)
    out = tmp_path / "annotated.c"
    env = dict(os.environ, PYTHONPATH=f"{ROOT / 'server'}:{ROOT / 'training'}")
    subprocess.run(
        [sys.executable, "-m", "accls", "annotate", "--model", "openmp",
         "--no-index", str(src), "-o", str(out)],
        check=True, env=env, capture_output=True, timeout=120,
    )  # fmt: skip
    text = out.read_text()
    # Both row loops (qsort on a row, memcpy of a row) get their pragma.
    assert text.count("#pragma omp parallel for") >= 2, text
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    subprocess.run([gcc, "-O1", str(src), "-o", str(serial)], check=True)
    subprocess.run([gcc, "-O1", "-fopenmp", str(out), "-o", str(parallel)], check=True)
    want = subprocess.run([str(serial)], capture_output=True, text=True, check=True)
    for threads in ("2", "4"):
        got = subprocess.run(
            [str(parallel)],
            capture_output=True,
            text=True,
            check=True,
            env=dict(os.environ, OMP_NUM_THREADS=threads),
        )
        problem = compare_text(want.stdout, got.stdout, 1e-9)
        assert problem is None, f"{threads} threads: {problem}"


def test_a_field_store_into_the_next_row_of_structs_is_a_dependence() -> None:
    text = (
        "#include <string.h>\n"
        "struct P { double x, y; };\n"
        "void run(int n, int m, struct P *restrict a, const struct P *restrict b) {\n"
        "  for (int i = 0; i < n; i++) {\n"
        "    memcpy(&a[i*m], &b[i*m], m * sizeof(struct P));\n"
        "    a[i*m + m].x = 1.0;\n"
        "  }\n"
        "}\n"
    )
    loop = analyze_text(text).facts[0]
    assert not loop.parallel
    assert any(d.array == "a" for d in loop.dependences)
