"""Out-of-bounds subscripts: rows that run into each other, accesses past an array."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis.checks import check_file
from accls.analysis.mhp_bounds import Sweep
from accls.analysis.mhp_rows import flat_rows, leaves_row
from accls.analysis.polyhedra import row


def codes(src: str) -> set[tuple[str, str]]:
    return {(f.code, f.level.value) for f in check_file(dedent(src), "t.c")}


REGION = """
#include <omp.h>
#define T 4
#define N 16
double m[T][N];
void f(int n) {
  #pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    for (int j = 0; j BOUND; j++)
      m[t][j] = 1.0;
  }
}
"""


def test_region_row_past_its_end_races_with_the_next_thread() -> None:
    assert codes(REGION.replace("BOUND", "<= N")) == {("ACC120", "error")}


def test_region_row_below_zero_races_with_the_previous_thread() -> None:
    # m[t][-1] is m[t - 1][N - 1], which thread t - 1 writes.
    src = REGION.replace("BOUND", "< N").replace("1.0", "m[t][j - 1]")
    assert codes(src) == {("ACC120", "error")}
    # Every row shifted by one: thread t writes m[t][-1 .. N - 2], nobody else's.
    shifted = REGION.replace("BOUND", "< N").replace("m[t][j]", "m[t][j - 1]")
    assert codes(shifted) == set()


def test_region_rows_within_their_extent_stay_clean() -> None:
    assert codes(REGION.replace("BOUND", "< N")) == set()
    assert codes(REGION.replace("BOUND", "< N - 1").replace("[j]", "[j + 1]")) == set()


def test_region_row_with_an_unknown_bound_is_not_flattened() -> None:
    # `n` may well be at most N: no sure escape, so no error.
    found = codes(REGION.replace("BOUND", "< n"))
    assert ("ACC120", "error") not in found


ARRAY = """
double a[100];
void f(void) {
  #pragma omp parallel for
  for (int i = 0; i < COUNT; i++)
    a[SUB] = (double)i;
}
"""


def test_write_surely_past_a_one_dimensional_array() -> None:
    src = ARRAY.replace("COUNT", "100").replace("SUB", "2 * i + 1")
    assert codes(src) == {("ACC113", "error")}
    found = check_file(dedent(src), "t.c")
    assert "outside the array" in found[0].message
    below = ARRAY.replace("COUNT", "100").replace("SUB", "i - 1")
    assert codes(below) == {("ACC113", "error")}


def test_one_dimensional_array_within_its_extent_stays_clean() -> None:
    assert codes(ARRAY.replace("COUNT", "50").replace("SUB", "2 * i + 1")) == set()
    assert codes(ARRAY.replace("COUNT", "99").replace("SUB", "i + 1")) == set()


def test_parameter_brackets_give_no_extent() -> None:
    src = """
    void f(double a[100]) {
      #pragma omp parallel for
      for (int i = 0; i < 100; i++)
        a[2 * i + 1] = (double)i;
    }
    """
    assert codes(src) == set()


def test_flat_rows_weights_each_dimension_by_its_stride() -> None:
    rows = [
        row({"t@1": 1, "t@2": -1}, equality=True),
        row({"j@1": 1}, -3, equality=True),
    ]
    (flat,) = flat_rows(rows, [16])
    assert dict(flat.coeffs) == {"t@1": 16, "t@2": -16, "j@1": 1}
    assert flat.const == -3
    assert flat.equality


def test_leaves_row_needs_literal_bounds() -> None:
    literal = Sweep("j", 0, 1, (("1", 0),), (("1", 16),))
    assert leaves_row({"j@1": 1}, 16, [literal], 1)
    assert not leaves_row({"j@1": 1}, 17, [literal], 1)
    open_ended = Sweep("j", 0, 1, (("1", 0),), (("n", 1),))
    assert not leaves_row({"j@1": 1}, 16, [open_ended], 1)


def test_a_guard_that_keeps_the_row_in_bounds_stays_clean() -> None:
    region = REGION.replace("BOUND", "<= N").replace(
        "      m[t][j] = 1.0;", "      if (j < N)\n        m[t][j] = 1.0;"
    )
    assert codes(region) == set()
    array = ARRAY.replace("COUNT", "100").replace(
        "    a[SUB]", "    if (i < 50)\n      a[2 * i + 1]"
    )
    assert codes(array) == set()
    rows = """
    double x[64][32];
    void g(void) {
      #pragma omp parallel for
      for (int i = 0; i < 64; i++)
        for (int j = 0; j < 33; j++)
          if (j < 32)
            x[i][j] = 1.0;
    }
    """
    assert codes(rows) == set()


def test_fortran_columns_are_not_c_rows() -> None:
    src = """
    subroutine s2()
      implicit none
      real :: c(10, 20)
      integer :: i, j
      !$omp parallel do private(i)
      do j = 1, 20
        do i = 1, 10
          c(i, j) = 1.0
        end do
      end do
      !$omp end parallel do
    end subroutine s2
    """
    found = {(f.code, f.level.value) for f in check_file(dedent(src), "t.f90")}
    assert ("ACC113", "error") not in found
