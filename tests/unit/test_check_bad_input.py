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
