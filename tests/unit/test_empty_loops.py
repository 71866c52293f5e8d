"""Loops that may run no iteration: lastprivate scalars keep their first value."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import ScalarClass, analyze_text
from accls.analysis.empty_loops import surely_runs
from accls.frontend import parse_source


def test_only_numeric_bounds_with_an_iteration_between_them_surely_run() -> None:
    text = dedent(
        """\
        #define N 8
        void f(int n, double *restrict a) {
          for (int i = 0; i < N; i++) a[i] = 0;
          for (int i = 0; i < n; i++) a[i] = 0;
          for (int i = N; i < N; i++) a[i] = 0;
          for (int i = N - 1; i >= 0; i--) a[i] = 0;
          for (int i = 3; i <= 3; i++) a[i] = 0;
        }
        """
    )
    loops = parse_source(text).loops()
    assert [surely_runs(loop, {"N": 8}) for loop in loops] == [
        True,
        False,
        False,
        True,
        True,
    ]


def test_an_inner_loop_that_may_be_empty_keeps_the_outer_value() -> None:
    # For i = n - 1 the j loop runs no iteration: `x` must stay what it was.
    (_, inner) = analyze_text(
        dedent(
            """\
            double f(int n, const double *restrict a) {
              double x = 0;
              for (int i = 0; i < n; i++)
                for (int j = 0; j < n - 1 - i; j++) x = a[i * n + j];
              return x;
            }
            """
        )
    ).facts
    (fact,) = [s for s in inner.scalars if s.name == "x"]
    assert fact.cls is ScalarClass.LASTPRIVATE
    assert fact.keep_first


def test_a_loop_of_known_length_needs_no_first_value() -> None:
    (loop,) = analyze_text(
        "double f(const double *restrict a) {\n  double x = 0;\n"
        "  for (int i = 0; i < 16; i++) x = a[i];\n  return x;\n}\n"
    ).facts
    (fact,) = [s for s in loop.scalars if s.name == "x"]
    assert fact.cls is ScalarClass.LASTPRIVATE
    assert not fact.keep_first
