"""Bad input to `accls check`: a clear finding or warning, never a traceback."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.findings import Severity


def _found(text: str) -> list[tuple[str, Severity, str]]:
    return [(f.code, f.level, f.message) for f in check_file(textwrap.dedent(text))]


def test_malformed_pragma_is_a_warning() -> None:
    found = _found(
        """
        void f(int n, double *a) {
          #pragma omp parallel for private(
          for (int i = 0; i < n; i++) a[i] = 1.0;
        }
        """
    )
    assert [(c, s) for c, s, _ in found] == [("ACC128", Severity.WARNING)]
    assert "cannot be read" in found[0][2]


def test_unknown_clause_is_named() -> None:
    found = _found(
        """
        void f(int n, double *a) {
          #pragma omp parallel for frobnicate(3)
          for (int i = 0; i < n; i++) a[i] = 1.0;
        }
        """
    )
    assert [(c, s) for c, s, _ in found] == [("ACC128", Severity.WARNING)]
    assert "`frobnicate` is not an OpenMP clause" in found[0][2]


def test_depend_on_an_expression_is_a_warning_not_an_error() -> None:
    found = _found(
        """
        int f(int *p) {
          int x = 0, y = 0;
          #pragma omp parallel
          #pragma omp single
          {
            #pragma omp task depend(out: *p)
            x = 1;
            #pragma omp task depend(in: x)
            y = x;
          }
          return y;
        }
        """
    )
    codes = {c for c, _, _ in found}
    assert codes == {"ACC128", "ACC123"}
    assert all(s is not Severity.ERROR for _, s, _ in found)
    race = next(m for c, _, m in found if c == "ACC123")
    assert "`depend(out: *p)`" in race
    assert "points to decides" in race


def test_lock_through_a_pointer_is_a_warning() -> None:
    found = _found(
        """
        #include <omp.h>
        int f(omp_lock_t *lk) {
          int total = 0;
          #pragma omp parallel
          {
            omp_set_lock(lk);
            total = total + 1;
            omp_unset_lock(lk);
          }
          return total;
        }
        """
    )
    assert [(c, s) for c, s, _ in found] == [("ACC123", Severity.WARNING)]
    assert "pointer" in found[0][2]


def test_region_hidden_by_a_macro_is_a_warning() -> None:
    found = _found(
        """
        #define BEGIN {
        #define END }
        int g(int);
        int f(int n) {
          int x = 0;
          #pragma omp parallel
          BEGIN
            x = x + g(n);
          END
          return x;
        }
        """
    )
    assert ("ACC128", Severity.WARNING) in [(c, s) for c, s, _ in found]
    assert all(s is not Severity.ERROR for _, s, _ in found)
    assert any("cannot bound the region" in m for _, _, m in found)


def test_subscripted_depend_items_leave_the_pair_undecided() -> None:
    found = _found(
        """
        void f(int i, int j, double *a) {
          #pragma omp parallel
          #pragma omp single
          {
            #pragma omp task depend(out: a[i])
            a[0] = 1.0;
            #pragma omp task depend(in: a[j])
            a[1] = a[0];
          }
        }
        """
    )
    assert [(c, s) for c, s, _ in found] == [("ACC123", Severity.WARNING)]
    assert "`a[i]`" in found[0][2]
    assert "`a[j]`" in found[0][2]


VALID = r"""
#include <omp.h>
#pragma omp declare target
int dev_table[4];
#pragma omp end declare target
#pragma omp declare simd uniform(a) linear(i:1) notinbranch
double twice(double *a, int i) { return 2.0 * a[i]; }
#pragma omp declare reduction(mymax : double : omp_out = omp_out > \
    omp_in ? omp_out : omp_in) initializer(omp_priv = 0)
void f(int n, double *a, double *b) {
  double m = 0;
#pragma omp parallel for simd schedule(dynamic, 4) reduction(mymax : \
    m) aligned(a : 64)
  for (int i = 0; i < n; i++) m = a[i] > m ? a[i] : m;
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) \
    map(to: b[:n]) thread_limit(64) num_teams(8)
  for (int i = 0; i < n; i++) a[i] += b[i];
  #pragma omp target enter data map(alloc: a[0:n])
  #pragma omp target update from(a[0:n])
  #pragma omp target exit data map(delete: a[0:n])
  #pragma omp parallel
  {
    #pragma omp for schedule(monotonic: static) nowait
    for (int i = 0; i < n; i++) b[i] = 1.0;
    #pragma omp single copyprivate(m)
    m = 2.0;
#pragma omp taskloop grainsize(strict: 4) num_tasks(8) priority(1) \
    final(n < 10) untied
    for (int i = 0; i < n; i++) a[i] = 1.0;
    #pragma omp task in_reduction(+: m) detach(ev) affinity(a[0:n])
    m += 1;
    #pragma omp atomic update relaxed hint(omp_sync_hint_none)
    m += 1;
    #pragma omp cancel for if(n > 3)
    #pragma omp cancellation point parallel
    #pragma omp barrier
  }
#pragma omp parallel for ordered(1) collapse(1) \
    lastprivate(conditional: m) proc_bind(close) order(concurrent) \
    allocate(m) private(m)
  for (int i = 1; i < n; i++) {
    #pragma omp ordered depend(sink: i - 1)
    a[i] = a[i - 1];
    #pragma omp ordered depend(source)
  }
  #pragma omp scope reduction(+: m)
  { m += 1; }
  #pragma omp loop bind(thread)
  for (int i = 0; i < n; i++) a[i] = 0;
  #pragma omp tile sizes(4)
  for (int i = 0; i < n; i++) a[i] = 0;
  #pragma omp unroll partial(2)
  for (int i = 0; i < n; i++) a[i] = 0;
  #pragma omp simd nontemporal(a) simdlen(4) safelen(8)
  for (int i = 0; i < n; i++) a[i] = 0;
  #pragma omp taskwait depend(in: m) nowait
  #pragma omp requires unified_shared_memory
  #pragma omp masked filter(0)
  m = 1;
  #pragma omp parallel sections firstprivate(m) default(shared)
  {
    #pragma omp section
    m = 3;
  }
  #pragma omp critical(name) hint(omp_sync_hint_contended)
  m = 4;
  #pragma omp depobj(o) depend(inout: m)
  #pragma omp taskgroup task_reduction(+: m)
  { m = 5; }
  #pragma omp flush acq_rel
  #pragma omp flush(m)
  #pragma omp error at(execution) severity(warning) message("x")
  #pragma omp target data map(to: a[0:n]) use_device_ptr(a) use_device_addr(b[0:n])
  { m = 6; }
  #pragma omp atomic compare capture
  { m = m > 1 ? 1 : m; }
  #pragma omp teams distribute dist_schedule(static, 2) num_teams(2)
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target parallel for is_device_ptr(a) has_device_addr(b) \
    defaultmap(tofrom: scalar) device(0) nowait depend(out: a[0])
  for (int i = 0; i < n; i++) a[i] = 0;
}
"""


def test_valid_openmp_5_pragmas_are_not_unreadable() -> None:
    found = [m for c, _, m in _found(VALID) if c == "ACC128"]
    assert found == []
