"""Causes found by the second blind batch: locks in loops, depend elements, sweeps."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.findings import Severity


def _errors(src: str) -> list[tuple[str, int, str]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [
        (f.code, f.span.line, f.message) for f in found if f.level is Severity.ERROR
    ]


def _codes(src: str) -> set[str]:
    return {f.code for f in check_file(textwrap.dedent(src), "t.c")}


HALF_LOCKED = """
#include <omp.h>
int f(int n, const double *a, omp_lock_t *unused) {
  int count = 0;
  omp_lock_t lock;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    if (a[i] < 0.5) {
      count = count + 2;
      continue;
    }
    omp_set_lock(&lock);
    count = count + 1;
    omp_unset_lock(&lock);
  }
  return count;
}
"""


def test_lock_on_one_path_of_a_loop_is_a_pair() -> None:
    ((code, line, message),) = _errors(HALF_LOCKED)
    assert (code, line) == ("ACC121", 9)
    assert "`count` (write, line 9)" in message
    assert "`count` (write, line 13)" in message
    assert "the lock `lock` is held at line 13 but not at line 9" in message


def test_lock_on_every_path_of_a_loop_is_quiet() -> None:
    src = HALF_LOCKED.replace(
        "      count = count + 2;",
        "      omp_set_lock(&lock);\n      count = count + 2;\n"
        "      omp_unset_lock(&lock);",
    )
    assert _errors(src) == []


def test_lock_released_in_a_branch_stays_quiet() -> None:
    src = """
    #include <omp.h>
    int f(int n, const double *a) {
      int count = 0;
      omp_lock_t lock;
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        omp_set_lock(&lock);
        if (a[i] < 0.5) {
          omp_unset_lock(&lock);
          continue;
        }
        count = count + 1;
        omp_unset_lock(&lock);
      }
      return count;
    }
    """
    assert _errors(src) == []


DEPEND = """
void f(double *b) {
  double a[2] = {0.0, 0.0}, r = 0.0;
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp task depend(out: a[0]) shared(a)
    {
      a[0] = b[0];
      a[1] = b[1];
    }
    #pragma omp task depend(in: a[1]) shared(a, r)
    r = a[1];
    #pragma omp taskwait
  }
  b[2] = r;
}
"""


def test_depend_on_other_constant_element_orders_nothing() -> None:
    ((code, line, message),) = _errors(DEPEND)
    assert (code, line) == ("ACC122", 13)
    assert "`a[1]` (write, line 10)" in message


def test_depend_on_subscripts_with_names_stays_a_warning() -> None:
    src = DEPEND.replace("depend(out: a[0])", "depend(out: a[k])").replace(
        "void f(double *b)", "void f(double *b, int k)"
    )
    assert _errors(src) == []
    assert "ACC123" in _codes(src)


NOGROUP = """
static double out[1000];
double f(const double *b) {
  double s = 0.0;
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp taskloop nogroup
    for (int i = 0; i < 1000; i++)
      out[i] = b[i];
    for (int i = 0; i < 1000; i++)
      s += out[i];
  }
  return s;
}
"""


def test_sequential_loop_with_the_taskloop_variable_name_is_followed() -> None:
    ((code, line, message),) = _errors(NOGROUP)
    assert (code, line) == ("ACC122", 12)
    assert "`out[i]` (write, line 10)" in message


def test_disjoint_ranges_of_the_same_name_do_not_race() -> None:
    src = NOGROUP.replace(
        "for (int i = 0; i < 1000; i++)\n      s +=",
        "for (int i = 1000; i < 2000; i++)\n      s +=",
    ).replace("out[1000]", "out[2000]")
    assert _errors(src) == []


ADD_THROUGH = """
#include <omp.h>
static void add(omp_lock_t *l, double *x, double v) {
  omp_set_lock(l);
  *x += v;
  omp_unset_lock(l);
}
double f(int n, const double *a) {
  double total = 0.0;
  omp_lock_t lock, other;
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    add(&lock, &total, a[i]);
  return total;
}
"""


def test_callee_locking_through_its_pointer_protects_the_pointee() -> None:
    assert _errors(ADD_THROUGH) == []


def test_callee_given_two_different_locks_protects_nothing() -> None:
    src = ADD_THROUGH.replace(
        "    add(&lock, &total, a[i]);",
        "    if (i % 2) add(&lock, &total, a[i]); else add(&other, &total, a[i]);",
    )
    ((code, line, message),) = _errors(src)
    assert (code, line) == ("ACC103", 13)
    assert "written at line 5" in message


def test_callee_unlocked_on_one_path_protects_nothing() -> None:
    src = ADD_THROUGH.replace("  omp_set_lock(l);", "  if (v > 0) omp_set_lock(l);")
    ((code, _, message),) = _errors(src)
    assert code == "ACC103"
    assert "`total`" in message


def test_static_local_race_names_the_other_access() -> None:
    src = """
    static double scale(double x) {
      static double tmp;
      tmp = x * 2.0;
      return tmp + 1.0;
    }
    void f(int n, double *a) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++)
        a[i] = scale(a[i]);
    }
    """
    ((code, line, message),) = _errors(src)
    assert (code, line) == ("ACC124", 10)
    assert "(line 4) and read at line 5" in message


def test_shared_temporary_names_its_read() -> None:
    src = """
    void f(int n, const int *a, int *b) {
      int tmp;
      #pragma omp parallel for
      for (int i = 0; i < n; i++) {
        tmp = a[i] * 2;
        b[i] = tmp + 1;
      }
    }
    """
    found = check_file(textwrap.dedent(src), "t.c")
    (item,) = [f for f in found if f.code == "ACC103"]
    assert ("read", "7") in item.args
    assert "(read at line 7)" in item.message


def test_write_pinned_to_one_iteration_races_with_atomic_reads() -> None:
    src = """
    void f(int *a, int *b) {
      #pragma omp parallel for
      for (int i = 0; i < 100; i++) {
        if (i == 0) {
          a[0] = a[0] + 5;
        } else {
          int t;
          #pragma omp atomic read
          t = a[0];
          b[i] = t;
        }
      }
    }
    """
    found = [f for f in check_file(textwrap.dedent(src), "t.c") if f.code == "ACC101"]
    (item,) = found
    assert item.level is Severity.ERROR
    assert {("source_line", "6"), ("sink_line", "10")} <= set(item.args)
    assert "flow dependence" in item.message


def test_pinned_iteration_alone_carries_nothing() -> None:
    src = """
    void f(int *a, int k) {
      #pragma omp parallel for
      for (int i = 0; i < 100; i++) {
        if (i == k)
          a[0] = a[0] + 5;
      }
    }
    """
    assert _errors(src) == []


def test_plain_flag_spun_on_under_flush_is_a_race() -> None:
    src = """
    #include <omp.h>
    int f(int value) {
      int data = 0, flag = 0;
      #pragma omp parallel num_threads(2)
      {
        if (omp_get_thread_num() == 0) {
          data = value;
          #pragma omp flush
          flag = 1;
        } else {
          int seen = 0;
          while (!seen) {
            #pragma omp flush
            seen = flag;
          }
          data = data + 1;
        }
      }
      return data;
    }
    """
    ((code, line, message),) = _errors(src)
    assert (code, line) == ("ACC120", 15)
    assert "`flag` (write, line 10) and `flag` (read, line 15)" in message
    assert "without `atomic`" in message


INDEXED = """
int idx[1000];
double a[1000];
void f(void) {
  int n = 1000;
  for (int k = 0; k < n; k++) idx[k] = STORE;
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[idx[i]] += 1.0;
}
"""


def test_index_array_repeating_by_construction_is_a_race() -> None:
    ((code, line, message),) = _errors(INDEXED.replace("STORE", "k % 500"))
    assert (code, line) == ("ACC101", 9)
    assert "`idx[k] = k % 500` (line 6) repeats values" in message
    ((code, _, _),) = _errors(INDEXED.replace("STORE", "k / 2"))
    assert code == "ACC101"


def test_index_array_distinct_by_construction_is_quiet() -> None:
    src = INDEXED.replace("STORE", "(k * 7) % 1000")
    assert _codes(src) & {"ACC101", "ACC109"} == set()


def test_index_array_with_unknown_values_still_warns() -> None:
    src = INDEXED.replace("STORE", "k % m").replace("void f(void)", "void f(int m)")
    assert "ACC109" in _codes(src)
    assert _errors(src) == []


CALLEE_LOCKS = """
#include <omp.h>
omp_nest_lock_t nl;
int counter;
void bump(int depth) {
  omp_set_nest_lock(&nl);
  counter++;
  if (depth > 0) bump(depth - 1);
  omp_unset_nest_lock(&nl);
}
void reset(void) {
  RESET
}
void f(void) {
  #pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 1)
      reset();
    else
      bump(2);
  }
}
"""


def test_callee_lock_held_by_one_writer_only_is_a_race() -> None:
    ((code, _, message),) = _errors(CALLEE_LOCKS.replace("RESET", "counter = 0;"))
    assert code == "ACC124"
    assert "`counter`" in message
    assert "(line 7) and written at line 12" in message


def test_callee_locks_held_by_every_writer_are_quiet() -> None:
    src = CALLEE_LOCKS.replace(
        "RESET", "omp_set_nest_lock(&nl);\n  counter = 0;\n  omp_unset_nest_lock(&nl);"
    )
    assert _errors(src) == []


SECTIONS_ADD = """
#include <omp.h>
static void add(omp_lock_t *l, double *x, double v) {
  omp_set_lock(l);
  *x += v;
  omp_unset_lock(l);
}
double f(double v) {
  double total = 0.0;
  omp_lock_t la, lb;
  #pragma omp parallel sections
  {
    #pragma omp section
    add(&la, &total, v);
    #pragma omp section
    add(&SECOND, &total, v);
  }
  return total;
}
"""


def test_sections_passing_two_locks_through_a_pointer_race() -> None:
    ((code, _, message),) = _errors(SECTIONS_ADD.replace("SECOND", "lb"))
    assert code == "ACC124"
    assert "`total` (the caller's variable, written through a pointer argument)" in (
        message
    )
    assert "(line 5)" in message


def test_sections_passing_one_lock_through_a_pointer_are_quiet() -> None:
    assert _errors(SECTIONS_ADD.replace("SECOND", "la")) == []


def test_private_variable_passed_by_address_does_not_race() -> None:
    src = SECTIONS_ADD.replace("SECOND", "lb").replace(
        "parallel sections", "parallel sections private(total)"
    )
    assert _errors(src) == []


TABLE = """
#include <stdlib.h>
#define N 6
int table[N] = {10, 12, 14, 22, 24, 26};
void f(double *w) {
  double *base = (double *)malloc(sizeof(double) * 80);
  double *xa1 = base;
  double *xa2 = base + OFFSET;
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) {
    int idx = table[i];
    xa1[idx] += w[i];
    xa2[idx] += w[i];
  }
  free(base);
}
"""


def test_constant_table_into_one_buffer_clashes() -> None:
    ((code, line, message),) = _errors(TABLE.replace("OFFSET", "12"))
    assert (code, line) == ("ACC101", 12)
    assert "`xa1[idx]` (line 12) and `xa2[idx]` (line 13) reach `base[22]`" in message


def test_constant_table_into_one_buffer_apart_is_quiet() -> None:
    assert _codes(TABLE.replace("OFFSET", "40")) & {"ACC101", "ACC102"} == set()


def test_table_written_somewhere_is_not_enumerated() -> None:
    src = TABLE.replace("OFFSET", "40").replace(
        "  free(base);", "  table[0] = 0;\n  free(base);"
    )
    assert "ACC102" in _codes(src)


PER_ITERATION = """
void f(double *out, const double *a) {
  #pragma omp parallel
  #pragma omp single
  {
    for (int i = 0; i < 64; i++) {
      #pragma omp task firstprivate(i) shared(out)
      out[INDEX] = a[i];
    }
    #pragma omp taskwait
  }
}
"""


def test_per_iteration_tasks_on_their_own_elements_are_quiet() -> None:
    assert _errors(PER_ITERATION.replace("INDEX", "i")) == []
    assert _errors(PER_ITERATION.replace("INDEX", "2 * i + 1")) == []


def test_per_iteration_tasks_on_one_element_race() -> None:
    ((code, _, _),) = _errors(PER_ITERATION.replace("INDEX", "3"))
    assert code == "ACC122"


TID_SLOT = """
#include <omp.h>
double sums[256];
void f(int n, const double *a) {
  #pragma omp parallel
  {
    int t = omp_get_thread_num();
    #pragma omp for
    for (int i = 0; i < n; i++)
      sums[SLOT] += a[i];
  }
}
"""


def test_thread_number_slot_in_a_worksharing_loop_is_quiet() -> None:
    assert _errors(TID_SLOT.replace("SLOT", "t")) == []


def test_other_fixed_slot_in_a_worksharing_loop_races() -> None:
    src = TID_SLOT.replace("SLOT", "k").replace("int n,", "int n, int k,")
    assert [c for c, _, _ in _errors(src)] == ["ACC101"]


def test_single_after_nowait_loop_races_on_any_thread() -> None:
    src = """
    double a[1000];
    double f(const double *b) {
      double seen = 0.0;
      #pragma omp parallel shared(seen)
      {
        #pragma omp for nowait
        for (int i = 0; i < 1000; i++)
          a[i] = b[i];
        #pragma omp single
        seen = a[9];
      }
      return seen;
    }
    """
    ((code, line, message),) = _errors(src)
    assert (code, line) == ("ACC120", 11)
    assert "`a[i]` (write, line 9) and `a[9]` (read, line 11)" in message


def test_in_reduction_tasks_do_not_race() -> None:
    src = """
    double f(const double *a) {
      double x = 0.0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp taskgroup task_reduction(+: x)
        {
          for (int i = 0; i < 16; i++) {
            #pragma omp task in_reduction(+: x)
            x += a[i];
          }
        }
      }
      return x;
    }
    """
    assert _errors(src) == []


NEIGHBOUR = """
#include <omp.h>
double x[4], y[4];
void f(void) {
  #pragma omp parallel num_threads(4)
  {
    int t = omp_get_thread_num();
    x[t] = t;
    y[t] = x[READ];
  }
}
"""


def test_neighbour_slot_by_thread_number_races() -> None:
    ((code, line, _),) = _errors(NEIGHBOUR.replace("READ", "(t + 1) % 4"))
    assert (code, line) == ("ACC120", 9)


def test_own_slot_by_thread_number_arithmetic_is_quiet() -> None:
    assert _errors(NEIGHBOUR.replace("READ", "(t + 4) % 4")) == []


ROWS = """
#define M 32
double grid[65][M];
void fill(double a[][M], int n, int m) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j COMPARE m; j++)
      a[i][j] = i + j;
}
void g(void) { fill(grid, 64, M); }
"""


def test_row_overrun_through_a_parameter_bound_is_a_race() -> None:
    ((code, line, message),) = _errors(ROWS.replace("COMPARE", "<="))
    assert (code, line) == ("ACC113", 8)
    assert "subscript `j` reaches 32; a row has 32 elements" in message


def test_row_within_a_parameter_bound_is_quiet() -> None:
    assert _errors(ROWS.replace("COMPARE", "<")) == []


def test_parameter_bound_with_two_caller_values_is_not_assumed() -> None:
    src = ROWS.replace("COMPARE", "<=").replace(
        "fill(grid, 64, M); }", "fill(grid, 64, M); fill(grid, 64, 8); }"
    )
    assert _errors(src) == []


def test_loop_variable_read_under_a_lock_is_not_half_locked() -> None:
    src = """
    #include <omp.h>
    double a[1000];
    double f(void) {
      double best = 0;
      omp_lock_t l;
      #pragma omp parallel for private(best)
      for (int i = 0; i < 1000; i++) {
        omp_set_lock(&l);
        if (a[i] > best) best = a[i];
        omp_unset_lock(&l);
        if (a[i] > best) best = 0;
      }
      return best;
    }
    """
    assert "ACC121" not in _codes(src)


CRITICAL_CALLEES = """
void f1(int *q) {
  #pragma omp critical(NAME1)
  *q += 1;
}
void f2(int *q) {
  #pragma omp critical(NAME2)
  *q += 2;
}
int g(void) {
  int i = 0;
  #pragma omp parallel
  {
    f1(&i);
    f2(&i);
  }
  return i;
}
"""


def test_callees_writing_through_a_pointer_under_one_critical_are_quiet() -> None:
    src = CRITICAL_CALLEES.replace("NAME1", "a").replace("NAME2", "a")
    assert _errors(src) == []


def test_callees_writing_through_a_pointer_under_two_criticals_race() -> None:
    src = CRITICAL_CALLEES.replace("NAME1", "a").replace("NAME2", "b")
    ((code, _, message),) = _errors(src)
    assert code == "ACC124"
    assert "`i` (the caller's variable, written through a pointer argument)" in message


TASKDEP = """
#include <stdio.h>
void foo(void) {
  int x = 0, y = 2;
  #pragma omp task depend(inout: x) shared(x)
  x++;
  #pragma omp task shared(y)
  y--;
  WAIT
  printf("%d\\n", x);
  printf("%d\\n", y);
  #pragma omp taskwait
}
"""


def test_undeferred_task_with_depend_waits_for_its_predecessor_only() -> None:
    src = TASKDEP.replace("WAIT", "#pragma omp task depend(in: x) if(0)\n  {}")
    ((code, line, message),) = _errors(src)
    assert (code, line) == ("ACC122", 12)
    assert "`y` (update, line 8) and `y` (read, line 12)" in message


def test_taskwait_depend_waits_for_the_tasks_it_names_only() -> None:
    src = TASKDEP.replace("WAIT", "#pragma omp taskwait depend(in: x)")
    ((code, line, _),) = _errors(src)
    assert (code, line) == ("ACC122", 11)


def test_taskwait_depend_on_both_orders_both() -> None:
    src = TASKDEP.replace("WAIT", "#pragma omp taskwait").replace(
        "  #pragma omp task shared(y)", "  #pragma omp task depend(inout: y) shared(y)"
    )
    assert _errors(src) == []
