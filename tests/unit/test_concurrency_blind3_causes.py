"""Causes found by the third blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.depend_items import distinct_constants, split_depend
from accls.analysis.findings import Severity


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level is Severity.ERROR]


def test_iterator_with_literal_bounds_names_each_element() -> None:
    assert split_depend("iterator(j = 0:3), out: a[j]") == (
        "out",
        ["a[0]", "a[1]", "a[2]"],
    )
    assert split_depend("iterator(int j=0:6:2), in: a[j+1]") == (
        "in",
        ["a[1]", "a[3]", "a[5]"],
    )


def test_iterator_with_a_symbolic_bound_keeps_its_name() -> None:
    assert split_depend("iterator(j = 0:n), out: a[j]") == ("out", ["a[j]"])


def test_sections_without_modifiers_keep_their_colons() -> None:
    assert split_depend("inout: a[0:5], b") == ("inout", ["a[0:5]", "b"])
    assert split_depend("source") is None


def test_constant_sections_are_intervals() -> None:
    assert distinct_constants("a[0:5]", "a[5:5]")
    assert distinct_constants("a[:5]", "a[7]")
    assert not distinct_constants("a[0:5]", "a[4]")
    assert not distinct_constants("a[0:n]", "a[5:5]")
    assert not distinct_constants("a[0:5]", "b[5:5]")


def test_hidden_state_is_an_identifier() -> None:
    src = """
    #include <stdlib.h>
    void f(int *a) {
      #pragma omp parallel for
      for (int i = 0; i < 100; i++) a[i] = rand();
    }
    """
    found = [f for f in check_file(textwrap.dedent(src), "t.c") if f.code == "ACC124"]
    names = [dict(f.args)["var"] for f in found]
    assert names == ["__libc_rand_state"]
    assert names[0].isidentifier()


TARGET = """
void f(void) {
  int a[100];
  #pragma omp parallel
  #pragma omp single
  {
    #pragma omp target nowait CLAUSES
    for (int i = 0; i < 100; i++) a[i] = i;
    a[5] = 0;
    #pragma omp taskwait
  }
}
"""


def test_target_nowait_implicit_array_map() -> None:
    assert _errors(TARGET.replace("CLAUSES", "")) == [("ACC122", 9)]


def test_target_nowait_defaultmap_leaves_only_explicit_maps() -> None:
    assert _errors(TARGET.replace("CLAUSES", "defaultmap(alloc: aggregate)")) == []


def test_target_nowait_scalar_is_firstprivate() -> None:
    src = """
    void f(double *out) {
      double s = 1.0;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp target nowait map(from: out[0:1])
        out[0] = s;
        s = 2.0;
        #pragma omp taskwait
      }
    }
    """
    assert _errors(src) == [("ACC122", 9)]


def test_target_update_to_nowait_reads_the_host_copy() -> None:
    src = """
    void f(double *a) {
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp target update to(a[0:10]) nowait
        double x = a[3];
        a[3] = x + 1.0;
        #pragma omp taskwait
      }
    }
    """
    assert _errors(src) == [("ACC122", 8)]


def test_test_lock_in_an_if_holds_the_lock_in_its_arm() -> None:
    src = """
    #include <omp.h>
    int f(omp_lock_t *unused) {
      omp_lock_t lock;
      int done = 0;
      omp_init_lock(&lock);
      #pragma omp parallel shared(done, lock)
      {
        if (omp_test_lock(&lock)) {
          done++;
          omp_unset_lock(&lock);
        }
      }
      return done;
    }
    """
    assert _errors(src) == []


def test_atomic_counter_without_plain_read_is_quiet() -> None:
    src = """
    void f(int *slot) {
      int next = 0;
      #pragma omp parallel for
      for (int i = 0; i < 100; i++) {
        int k;
        #pragma omp atomic capture
        k = next++;
        slot[k] = i;
      }
    }
    """
    assert [e for e in _errors(src) if e[0] == "ACC103"] == []


def test_callee_under_an_equality_test_is_not_every_iteration() -> None:
    src = """
    static long total;
    static void bump(long v) { total += v; }
    void f(int n) {
      #pragma omp parallel for
      for (int i = 0; i < 100; i++)
        if (i == 0) bump(i);
    }
    """
    assert [e for e in _errors(src) if e[0] == "ACC124"] == []
    assert [e for e in _errors(src.replace("i == 0", "i % 2")) if e[0] == "ACC124"]
    assert [e for e in _errors(src.replace("i == 0", "i % 2 == 0")) if e[0] == "ACC124"]
    assert not [e for e in _errors(src.replace("i == 0", "n == i")) if e[0] == "ACC124"]


DOACROSS = """
void f(int *a, int n) {
  #pragma omp parallel for ordered(1)
  for (int i = 4; i < n; i++) {
    #pragma omp ordered depend(sink: i - SINK)
    a[i] = a[i - READ] + 1;
    #pragma omp ordered depend(source)
  }
}
"""


def _doacross(sink: str, read: str) -> list[tuple[str, int]]:
    src = DOACROSS.replace("SINK", sink).replace("READ", read)
    return [e for e in _errors(src) if e[0] == "ACC101"]


def test_doacross_sink_farther_than_the_read_races() -> None:
    assert _doacross("2", "1") == [("ACC101", 6)]


def test_doacross_sinks_chain_to_the_read() -> None:
    assert _doacross("1", "1") == []
    assert _doacross("2", "4") == []  # two waits of 2 make 4
    assert _doacross("1) depend(sink: i - 3", "3") == []


BRANCH_BARRIER = """
#include <omp.h>
void f(int *seen, int n) {
  int x = 0;
  #pragma omp parallel shared(x, seen)
  {
    int tid = omp_get_thread_num();
    if (TEST) {
      x = 42;
      #pragma omp barrier
    }
    seen[tid] = x;
  }
}
"""


def test_barrier_under_a_thread_test_separates_nothing() -> None:
    assert ("ACC120", 12) in _errors(BRANCH_BARRIER.replace("TEST", "tid == 0"))


def test_barrier_under_a_shared_test_still_separates() -> None:
    src = BRANCH_BARRIER.replace("TEST", "n > 4").replace(
        "x = 42;", "#pragma omp master\n      x = 42;"
    )
    assert _errors(src) == []
    assert _errors(src.replace("#pragma omp barrier", ""))  # the barrier decides


ALIAS = """
#define N 100
void f(void) {
  double a[N + 4], b[N + 4];
  double *p = a;
  double *q = INIT;
  #pragma omp parallel for
  for (int i = 0; i < N; i++)
    p[i] = q[i] * 0.5;
}
"""


def _alias(init: str, extra: str = "") -> list[tuple[str, int]]:
    src = ALIAS.replace("INIT", init).replace(
        "  #pragma omp parallel", extra + "  #pragma omp parallel"
    )
    return [e for e in _errors(src) if e[0] == "ACC101"]


def test_two_pointers_into_one_array_apart_race() -> None:
    assert _alias("a + 1") == [("ACC101", 9)]
    assert _alias("&a[3]") == [("ACC101", 9)]


def test_pointers_into_one_element_or_two_arrays_are_quiet() -> None:
    assert _alias("a") == []
    assert _alias("b + 1") == []
    assert _alias("a + 1", "  q = b;\n") == []  # set again: not followed


COPYPRIVATE = """
#include <omp.h>
static int buf[64];
void f(void) {
  int *p;
  #pragma omp parallel private(p)
  {
    #pragma omp single copyprivate(p)
    p = SET;
    *p = omp_get_thread_num();
  }
}
"""


def test_copyprivate_pointer_points_every_thread_at_one_object() -> None:
    assert _errors(COPYPRIVATE.replace("SET", "&buf[1]")) == [("ACC120", 10)]


def test_private_pointer_without_copyprivate_stays_private() -> None:
    src = COPYPRIVATE.replace(" copyprivate(p)", "").replace(
        "p = SET;", "{ }\n    p = &buf[omp_get_thread_num()];"
    )
    assert _errors(src) == []


DECLARE_SIMD = """
#pragma omp declare simd uniform(a) linear(i : 1)
static void step(float *a, int i) {
  BODY;
}
void f(float *a, int n) {
  #pragma omp simd CLAUSE
  for (int i = 0; i < n; i++) step(a, i);
}
"""


def _simd(body: str, clause: str = "") -> list[tuple[str, int]]:
    src = DECLARE_SIMD.replace("BODY", body).replace("CLAUSE", clause)
    return [e for e in _errors(src) if e[0] == "ACC101"]


def test_declare_simd_callee_writing_ahead_of_its_read_races() -> None:
    assert _simd("a[i + 1] = a[i] * 0.5f") == [("ACC101", 8)]
    assert _simd("a[i + 4] = a[i] * 0.5f", "safelen(8)") == [("ACC101", 8)]


def test_declare_simd_callee_within_safelen_or_reading_ahead_is_quiet() -> None:
    assert _simd("a[i + 8] = a[i] * 0.5f", "safelen(8)") == []
    assert _simd("a[i] = a[i + 1] * 0.5f") == []
    assert _simd("a[i] = a[i] * 0.5f") == []


SPIN = """
void f(int *out) {
  int lk = 0, counter = 0;
  #pragma omp parallel shared(lk, counter)
  {
    int old = 1;
    while (old) {
      #pragma omp atomic capture seq_cst
      { old = lk; lk = 1; }
    }
    #pragma omp flush
    INSIDE;
    #pragma omp atomic write seq_cst
    lk = 0;
    AFTER;
  }
  *out = counter;
}
"""


def test_spin_lock_protects_what_lies_between_acquire_and_release() -> None:
    assert _errors(SPIN.replace("INSIDE", "counter++").replace("AFTER", "")) == []


def test_spin_lock_released_before_the_update_races() -> None:
    src = SPIN.replace("INSIDE", "").replace("AFTER", "counter++")
    assert _errors(src) == [("ACC120", 15)]
