"""Causes found by the fifteenth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_STATS = """\
    typedef struct { double sum, sumsq, weight; } stats_t;
    static void add_sum(stats_t *acc, const double *x, int lo, int hi) {
      for (int i = lo; i < hi; i++) acc->sum += x[i];
      acc->weight += hi - lo;
    }
    static void add_sq(stats_t *acc, const double *x, int lo, int hi) {
      for (int i = lo; i < hi; i++) acc->sumsq += x[i] * x[i];
      acc->weight += hi - lo;
    }
    void run(stats_t *acc, const double *x, int n) {
      #pragma omp parallel
      #pragma omp single
      for (int lo = 0; lo < n; lo += 100) {
        #pragma omp task depend(inout: {first})
        add_sum(acc, x, lo, lo + 100);
        #pragma omp task depend(inout: {second})
        add_sq(acc, x, lo, lo + 100);
      }
    }
"""


def _stats(first: str, second: str) -> str:
    return _STATS.replace("{first}", first).replace("{second}", second)


def test_a_member_depend_item_orders_a_loops_task_instances() -> None:
    # `acc` never changes in the loop: every instance names one object
    assert _errors(_stats("acc->sum, acc->weight", "acc->sumsq, acc->weight")) == []
    # only the member both tasks update is unordered between the two tasks
    found = _errors(_stats("acc->sum", "acc->sumsq"))
    assert found
    assert {c for c, _ in found} == {"ACC124"}
    assert all(line in (4, 8) or line in (15, 17) for _, line in found)


def test_a_depend_item_naming_each_iterations_element_orders_nothing() -> None:
    each = """\
        typedef struct { double weight; } stats_t;
        static void add(stats_t *acc, double *part, double v) {
          *part += v;
          acc->weight += 1.0;
        }
        void run(stats_t *acc, double *part, const double *x, int n) {
          #pragma omp parallel
          #pragma omp single
          for (int i = 0; i < n; i++) {
            #pragma omp task depend(inout: {item})
            add(acc, &part[i], x[i]);
          }
        }
    """
    # `part[i]` is another element per instance: `acc->weight` is unordered
    found = _errors(each.replace("{item}", "part[i]"))
    assert ("ACC124", 11) in found
    # `acc->weight` names one object: the instances run one at a time
    assert _errors(each.replace("{item}", "part[i], acc->weight")) == []
