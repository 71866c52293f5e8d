"""A callee given a row of a pointer table reads what the row points to.

`means[i] = mean(rows[i])` with `rows[i] = means + i`: the callee reads through
a pointer read from `rows`, which may point into the array the loop writes
(iteration i reads `means[i + 1]`, which iteration i + 1 writes). The loop's own
`rows[i][0]` is refused for that reason; the call must be too.
"""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

_HEAD = """\
#include <stdlib.h>
#define N 1000
static double means[N + 2];
static double grid[N][2];
double mean2(const double *row) { return 0.5 * (row[0] + row[1]); }
"""


def _verdict(body: str) -> tuple[bool, str]:
    facts = analyze(parse_source(_HEAD + dedent(body), "rows.c")).facts
    last = max(facts, key=lambda f: f.loop.line)
    return last.parallel, " | ".join(o.message for o in last.obstacles)


def test_rows_of_a_heap_table_into_the_written_array() -> None:
    parallel, why = _verdict("""\
        void f(void) {
          double **rows = malloc(sizeof(double *) * N);
          for (int i = 0; i < N; i++) rows[i] = means + i;
          for (int i = 0; i < N; i++) means[i] = mean2(rows[i]);
        }
        """)
    assert not parallel
    assert "`rows[i]` through an argument" in why


def test_rows_of_a_local_pointer_array_into_the_written_array() -> None:
    parallel, _ = _verdict("""\
        void f(void) {
          double *rows[N];
          for (int i = 0; i < N; i++) rows[i] = means + i;
          for (int i = 0; i < N; i++) means[i] = mean2(rows[i]);
        }
        """)
    assert not parallel


def test_rows_of_a_table_of_own_allocations_stay_parallel() -> None:
    parallel, why = _verdict("""\
        void f(void) {
          double **rows = malloc(sizeof(double *) * N);
          for (int i = 0; i < N; i++) rows[i] = calloc(2, sizeof(double));
          for (int i = 0; i < N; i++) means[i] = mean2(rows[i]);
        }
        """)
    assert parallel, why


def test_a_row_of_a_two_dimensional_array_stays_parallel() -> None:
    parallel, why = _verdict("""\
        void f(void) {
          for (int i = 0; i < N; i++) means[i] = mean2(grid[i]);
        }
        """)
    assert parallel, why


def test_an_element_address_is_still_the_array_itself() -> None:
    parallel, _ = _verdict("""\
        void f(void) {
          for (int i = 0; i < N; i++) means[i] = mean2(&means[i + 1]);
        }
        """)
    assert not parallel


_GLOBAL_TABLE = """\
        static double *grow[N];
        void f(void) {
          for (int i = 0; i < N; i++) grow[i] = means + i;
          for (int i = 0; i < N; i++) means[i] = mean2(%s);
        }
        """


def test_rows_of_a_global_table_however_the_argument_loads_them() -> None:
    for arg in ("grow[i]", "grow[i] + 1", "*(grow + i)", "( * (grow + i))"):
        parallel, why = _verdict(_GLOBAL_TABLE % arg)
        assert not parallel, arg
        assert "through an argument" in why, arg


_TABLE_CALLEE = """\
        static double *grow[N];
        double second(double *const *tab, int i) { return tab[i][1]; }
        double gsecond(int i) { return grow[i][1]; }
        void f(void) {
          double **t = malloc(sizeof(double *) * N);
          for (int i = 0; i < N; i++) grow[i] = means + i;
          for (int i = 0; i < N; i++) t[i] = means + i;
          for (int i = 0; i < N; i++) means[i] = %s;
        }
        """


def test_a_callee_given_a_table_reads_through_its_rows() -> None:
    for call in ("second(grow, i)", "second(t, i)", "gsecond(i)"):
        parallel, why = _verdict(_TABLE_CALLEE % call)
        assert not parallel, call
        assert "may point to the same memory" in why, call


def test_a_table_of_own_allocations_passed_whole_stays_parallel() -> None:
    parallel, why = _verdict("""\
        double second(double *const *tab, int i) { return tab[i][1]; }
        void f(void) {
          double **t = malloc(sizeof(double *) * N);
          for (int i = 0; i < N; i++) t[i] = calloc(2, sizeof(double));
          for (int i = 0; i < N; i++) means[i] = second(t, i);
        }
        """)
    assert parallel, why
