"""The cost model's light loops: a step of a counter or index table is setup."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


COUNTERS = textwrap.dedent(
    """\
    struct list { int parts; int *index; };
    extern int levels;
    extern int *first;
    void add_level(int level) {
      for (int i = level + 1; i <= levels; i++) first[i]++;
    }
    void del_level(int level, struct list *pl) {
      for (int j = level + 1; j < pl->parts; j++) --pl->index[j];
    }
    void shift(double *w, int n, double c) {
      for (int i = 0; i < n; i++) w[i] += c;
    }
    void bump(int *count, const int *by, int n) {
      for (int i = 0; i < n; i++) count[by[i]]++;
    }
    """
)


def test_a_step_of_an_index_table_is_light_setup() -> None:
    found = _by_line(COUNTERS)
    assert found[5].profitable is False
    assert found[5].why.startswith("light loop: about 2 work units per iteration")
    assert "filling `first`" in found[5].why
    assert found[8].profitable is False
    assert found[8].why.startswith("light loop")


def test_an_update_by_a_value_or_through_a_table_is_left_to_the_model() -> None:
    found = _by_line(COUNTERS)
    assert not found[11].why.startswith("light loop")  # `+=`: maybe the work
    assert not found[14].why.startswith("light loop")  # reads `by[i]`: a histogram


TWO_STEPS = textwrap.dedent(
    """\
    extern int levels;
    extern int *first;
    void add_level(int level) {
      for (int i = level + 1; i <= levels; i++) first[i]++;
    }
    void del_level(int level) {
      for (int j = level + 1; j <= levels; j++) first[j]--;
    }
    """
)


def test_two_steps_of_one_global_table_do_not_keep_each_other() -> None:
    # Each steps `first` at its own variable: neither is a kernel sharing it out.
    found = _by_line(TWO_STEPS)
    assert found[4].why.startswith("light loop")
    assert found[7].why.startswith("light loop")


SHARED = textwrap.dedent(
    """\
    void run(int n, int *count, const double *x, double *restrict y) {
      for (int i = 0; i < n; i++) count[i]++;
      for (int i = 0; i < n; i++) y[i] = x[i] * count[i];
    }
    """
)


def test_a_counter_a_parallel_loop_shares_out_keeps_its_pragma() -> None:
    found = _by_line(SHARED)
    assert not found[2].why.startswith("light loop")


SUMS = textwrap.dedent(
    """\
    double total(const double *x, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += x[i];
      return s;
    }
    double dot(const double *x, const double *y, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += x[i] * y[i];
      return s;
    }
    """
)


def test_a_sum_over_a_caller_sized_array_is_the_work_not_setup() -> None:
    # A reduction reads the program's data: `n` may be millions. It is no
    # counter step, and the file's other loops do not decide what it sweeps.
    found = _by_line(SUMS)
    for line in (3, 8):
        assert not found[line].why.startswith("light"), found[line].why
        assert found[line].profitable is not False
