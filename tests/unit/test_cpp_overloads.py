"""C++ calls resolved to their definitions: accessor overloads, static methods."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

_CLASS = """\
#include <vector>
class R {
 public:
  int* list(int r) { return l_[r].data(); }
  int& list(int r, int i) { return l_[r][i]; }
  int& item(int r, int i) { return p_[r][i]; }
  double& x(int i) { return x_[i]; }
  double& y(int i) { return x_[i]; }
  double& y(long i) { return y_[i]; }
  double& z(int i) { return x_[i]; }
  double& z(long i);
  double& w(int i) { return x_[i]; }
  double& w(int i, int j);
  static double half(double v) { return v * 0.5; }
  static double count(double v) { made++; return v; }
  static long made;
  std::vector<std::vector<int>> l_;
  std::vector<double> x_;
  std::vector<double> y_;
  int** p_;
};
"""


def _verdicts(body: str) -> list[tuple[bool, str]]:
    """Each loop's (parallel, obstacles' messages joined), in order."""
    facts = analyze(parse_source(_CLASS + dedent(body), "k.cpp")).facts
    return [
        (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in sorted(facts, key=lambda f: f.loop.line)
    ]


def test_an_overload_picked_by_its_argument_count_is_the_element_it_returns() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(R& d, int r, int n) {
          std::vector<double> out(n);
          for (int i = 0; i < n; i++) {
            out[i] = d.list(r, i) * 2.0;
          }
        }
        """
    )
    assert ok, why


def test_a_two_level_accessor_is_written_as_its_element() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(R& d, int r, int n) {
          for (int i = 0; i < n; i++) {
            d.list(r, i) = i;
          }
        }
        """
    )
    assert ok, why


def test_a_two_level_accessor_keeps_its_dependence() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(R& d, int r, int n) {
          for (int i = 1; i < n; i++) {
            d.list(r, i) = d.list(r, i - 1) + 1;
          }
        }
        """
    )
    assert not ok
    assert "l_[r][i - 1]" in why


def test_rows_of_a_pointer_member_may_overlap() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(R& d, int n) {
          for (int r = 0; r < n; r++) {
            d.item(r, 0) = r;
          }
        }
        """
    )
    assert not ok
    assert "p_" in why


def test_an_accessor_beside_a_declared_overload_of_another_count_is_kept() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(R& d, int n) {
          for (int i = 0; i < n; i++) {
            d.w(i) = 1.0;
          }
        }
        """
    )
    assert ok, why


def test_overloads_of_one_count_or_one_defined_elsewhere_stay_calls() -> None:
    verdicts = _verdicts(
        """\
        void f(R& d, int n) {
          for (int i = 0; i < n; i++) {
            d.y(i) = 1.0;
          }
          for (int i = 0; i < n; i++) {
            d.z(i) = 1.0;
          }
        }
        """
    )
    assert [ok for ok, _ in verdicts] == [False, False]


def test_a_qualified_call_of_a_static_method_is_its_definition() -> None:
    [(pure, why), (counting, _)] = _verdicts(
        """\
        void f(double* __restrict a, const double* __restrict b, int n) {
          for (int i = 0; i < n; i++) {
            a[i] = R::half(b[i]);
          }
          for (int i = 0; i < n; i++) {
            a[i] = R::count(b[i]);
          }
        }
        """
    )
    assert pure, why
    assert not counting
