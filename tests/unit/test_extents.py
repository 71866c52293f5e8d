"""Subscripts that leave their row, and loops without a bound: refused, reported."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.analysis.checks import check_file
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file


def facts(src: str) -> list[LoopFacts]:
    return list(analyze_text(dedent(src)).facts)


def codes(fact: LoopFacts) -> set[str]:
    return {o.code for o in fact.obstacles}


def outer_codes(src: str) -> set[str]:
    return codes(facts(src)[0])


def check_codes(src: str) -> set[tuple[str, str]]:
    return {(f.code, f.level.value) for f in check_file(dedent(src), "t.c")}


PREVIOUS_ROW = """
double x[64][32];
void f(void) {
  for (int i = 1; i < 64; i++)
    for (int j = 0; j < 32; j++)
      x[i][j] = x[i][j - 1] + 1.0;
}
"""


def test_read_below_row_start_refuses_outer_loop() -> None:
    outer, inner = facts(PREVIOUS_ROW)
    assert not outer.parallel
    assert "extent" in codes(outer)
    assert "extent" in codes(inner)


def test_read_inside_row_is_still_parallel() -> None:
    outer = facts(PREVIOUS_ROW.replace("j = 0", "j = 1"))[0]
    assert outer.parallel
    assert "extent" not in codes(outer)


MACRO_EXTENT = """
#define N 64
#define M 32
double x[N][M];
void f(void) {
  for (int i = 1; i < N; i++)
    for (int j = 0; j < 32; j++)
      x[i][j] = x[i][j + 1] + 1.0;
}
"""


def test_macro_extent_is_compared_with_a_constant_bound() -> None:
    # j + 1 reaches 32, the value of M: the next row.
    assert "extent" in outer_codes(MACRO_EXTENT)
    assert "extent" not in outer_codes(MACRO_EXTENT.replace("j < 32", "j < 31"))


NEXT_ROW_VLA = """
void f(int n, int m, double v[n][m]) {
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < m; j++)
      v[i][j] = 0.5 * (v[i][j] + v[i][j + 1]);
}
"""


def test_read_past_row_end_of_a_vla_refuses_outer_loop() -> None:
    assert "extent" in outer_codes(NEXT_ROW_VLA)
    assert "extent" not in outer_codes(NEXT_ROW_VLA.replace("j < m", "j < m - 1"))


SIZES_UNRELATED = """
#define N 100
void f(int n, double A[N][N], double B[N][N]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] + B[i][j];
}
"""


def test_bounds_unrelated_to_the_extent_keep_the_usual_assumption() -> None:
    # j < n may pass N only for some n: a program within its arrays is assumed.
    outer = facts(SIZES_UNRELATED)[0]
    assert outer.parallel


POINTER_ROWS = """
void f(int n, int m, double **restrict a) {
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i][j] = a[i][j - 1] * 0.5;
}
"""


def test_pointer_rows_below_zero_refuse() -> None:
    assert "extent" in outer_codes(POINTER_ROWS)


SYMBOLIC_OFFSET = """
double x[64][32];
void f(int k) {
  for (int i = 1; i < 64; i++)
    for (int j = 0; j < 32; j++)
      x[i][j] = x[i][j - k] + 1.0;
}
"""


def test_unproved_lower_bound_refuses() -> None:
    outer = facts(SYMBOLIC_OFFSET)[0]
    assert "extent" in codes(outer)
    assert not any(e.certain for e in outer.escapes)


def test_read_only_array_may_leave_its_row() -> None:
    src = PREVIOUS_ROW.replace("double x[64][32];", "double x[64][32], y[64][32];")
    src = src.replace("x[i][j] =", "y[i][j] =")
    assert facts(src)[0].parallel


COPY_DOWN = """
double z[64][32];
void f(void) {
  for (int i = 1; i < 64; i++)
    for (int j = 0; j < 32; j++)
      z[i][j] = z[i][j - 32] + 1.0;
}
"""


def test_no_collapse_over_a_wrapped_access() -> None:
    analysis = analyze_text(dedent(COPY_DOWN), options=AnalysisOptions(dialect="omp"))
    options = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    outer, inner = suggest_file(analysis, options)
    assert outer.pragma is None
    assert inner.pragma is None
    assert not outer.collapsed


def test_linearized_subscript_below_row_start_is_refused() -> None:
    src = """
    void f(int n, int m, double *restrict z) {
      for (int i = 1; i < n; i++)
        for (int j = 0; j < m; j++)
          z[i * m + j] = z[i * m + j - 1] + 1.0;
    }
    """
    assert not facts(src)[0].parallel


UNBOUNDED = """
void f(int n, int *first, int *last, double *src, double seg[40][16]) {
  for (int i = 0; i < n; i++) {
    int j, k;
    for (k = 0, j = first[i]; j < last[i]; k++, j++)
      seg[i][k] = src[j];
  }
}
"""


def test_condition_without_the_loop_variable_refuses_loop_and_nest() -> None:
    outer, inner = facts(UNBOUNDED)
    assert "unbounded" in codes(inner)
    assert "unbounded" in codes(outer)
    assert not outer.parallel


def test_condition_with_the_loop_variable_is_not_unbounded() -> None:
    src = UNBOUNDED.replace("j < last[i]", "k < last[i] - first[i]")
    outer, inner = facts(src)
    assert "unbounded" not in codes(outer) | codes(inner)


def test_check_reports_a_certain_escape_as_an_error() -> None:
    src = PREVIOUS_ROW.replace(
        "  for (int i", "  #pragma omp parallel for\n  for (int i"
    )
    assert check_codes(src) == {("ACC113", "error")}


def test_check_reports_an_unproved_lower_bound_as_a_warning() -> None:
    src = SYMBOLIC_OFFSET.replace(
        "  for (int i", "  #pragma omp parallel for\n  for (int i"
    )
    assert check_codes(src) == {("ACC113", "warning")}
