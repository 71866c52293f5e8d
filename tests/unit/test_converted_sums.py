"""Integer totals of floating values are no reductions: each step truncates."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#define N 1000
double a[N];
int ia[N];
float fa[N];
double dsq(double x) { return x * x; }
int isq(int x) { return x * x; }
int ok(double x, double lim) { return x < lim; }
TYPE total(void) {
  TYPE s = 0;
  for (int i = 0; i < N; i++) UPDATE;
  return s;
}
"""


def _fact(update: str, type_: str = "int"):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("TYPE", type_).replace("UPDATE", update)
    return next(f for f in analyze_text(text).facts if f.loop.function == "total")


@pytest.mark.parametrize(
    ("update", "type_"),
    [
        # -0.5, 1.5, -0.5, ...: serially 1, four threads' parts add up to 4
        ("s += a[i]", "int"),
        ("s = s + ia[i] * 0.5", "long"),
        ("s += dsq(a[i])", "int"),
        ("s *= fa[i]", "int"),
        ("s += (int)a[i] * 0.5", "int"),
        ("s += a[i] > 0 ? a[i] : 0", "unsigned"),
    ],
)
def test_an_integer_total_of_floating_values_is_refused(
    update: str, type_: str
) -> None:
    fact = _fact(update, type_)
    assert not fact.parallel
    assert any("each step truncates" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    ("update", "type_"),
    [
        ("s += (a[i] > 0.5)", "int"),
        ("s += (int)(a[i] * 2.0)", "int"),
        ("s += (int)a[i]", "int"),
        ("s += (long)a[i] * (i % 11)", "long"),
        ("s += (int)(a[i] * 2) + ia[i]", "int"),
        ("s += lround(a[i])", "long"),
        ("s += ia[i] * 2", "int"),
        ("s += isq(ia[i])", "int"),
        ("s *= ok(a[i], 0.5)", "int"),  # an int function of floating arguments
        ("s += a[i] > 0 ? 1 : 0", "int"),
        ("s += a[i]", "double"),
    ],
)
def test_exact_updates_stay_reductions(update: str, type_: str) -> None:
    fact = _fact(update, type_)
    assert fact.parallel
    assert [s.op for s in fact.scalars if s.name == "s"]


_FORTRAN = """\
subroutine total(a, n, s)
  integer, intent(in) :: n
  real(8), intent(in) :: a(n)
  integer, intent(out) :: s
  integer :: i
  s = 0
  do i = 1, n
    s = UPDATE
  end do
end subroutine total
"""


@pytest.mark.parametrize(
    ("update", "parallel"),
    [("s + a(i)", False), ("s + 2.5d0 * i", False), ("s + nint(a(i))", True)],
)
def test_a_fortran_integer_total_of_reals_is_refused(
    update: str, parallel: bool
) -> None:
    text = _FORTRAN.replace("UPDATE", update)
    (fact,) = analyze_text(text, path="t.f90").facts
    assert fact.parallel is parallel


_BLOCKS = """
long f(int n, const int *k, const double *v) {
  long ks = 0;
  for (int i = 0; i < n; ++i) {
    FIRST x = FIRSTVAL;
    ks += x;
  }
  long t = 0;
  for (int i = 0; i < n; ++i) {
    SECOND x = SECONDVAL;
    t += x;
  }
  return ks + t;
}
"""


@pytest.mark.parametrize(("first", "second"), [("int", "double"), ("double", "int")])
def test_each_block_s_own_declaration_types_the_value(first: str, second: str) -> None:
    # The name's first declaration in the function is not the one each loop means.
    values = {"int": "k[i]", "double": "v[i]"}
    text = (
        _BLOCKS.replace("FIRSTVAL", values[first])
        .replace("SECONDVAL", values[second])
        .replace("FIRST", first)
        .replace("SECOND", second)
    )
    facts = sorted(analyze_text(text).facts, key=lambda f: f.loop.span.start_byte)
    assert [f.parallel for f in facts] == [first == "int", second == "int"]


_RANGES = """
#include <vector>
long f(const std::vector<int> &keep, const std::vector<double> &v) {
  long t = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    double x = v[i];
    t += (long)x;
  }
  long ks = 0;
  for (RANGE) {
    ks += x;
  }
  return ks + t;
}
"""


@pytest.mark.parametrize(
    ("header", "parallel"),
    [
        ("int x : keep", True),
        ("const int &x : keep", True),
        ("auto x : keep", True),
        ("double x : v", False),
        ("const auto &x : v", False),
    ],
)
def test_a_range_for_variable_has_its_own_type(header: str, parallel: bool) -> None:
    # It declares no local: neither another block's `double x` nor none at all.
    text = _RANGES.replace("RANGE", header)
    facts = sorted(
        analyze_text(text, path="t.cpp").facts, key=lambda f: f.loop.span.start_byte
    )
    assert [f.parallel for f in facts] == [True, parallel]


def test_an_inner_range_for_variable_does_not_hide_the_outer_declaration() -> None:
    text = """
#include <vector>
long f(const std::vector<int> &keep, int n) {
  long t = 0;
  double x = 1.5;
  for (int i = 0; i < n; ++i) {
    t += x;
    for (int x : keep) {
      t -= 0;
    }
  }
  return t;
}
"""
    facts = sorted(
        analyze_text(text, path="t.cpp").facts, key=lambda f: f.loop.span.start_byte
    )
    assert not facts[0].parallel
