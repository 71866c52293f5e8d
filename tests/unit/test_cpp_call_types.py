"""Types of calls of C++ operators and lambdas the file defines; stores through them."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

_CLASSES = """\
#include <vector>
struct Scale {
  double factor, offset;
  double operator()(double v) const { return factor * v + offset; }
};
struct Field {
  std::vector<double> v;
  double &operator[](int i) { return v[i]; }
  double operator[](int i) const { return v[i]; }
  double &operator()(int i) { return v[i]; }
};
"""


def _verdicts(body: str) -> list[tuple[bool, str]]:
    """Each loop's (parallel, obstacles' messages joined), in order."""
    facts = analyze(parse_source(_CLASSES + dedent(body), "k.cpp")).facts
    return [
        (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in sorted(facts, key=lambda f: f.loop.line)
    ]


def test_a_functor_call_has_its_operators_return_type() -> None:
    # `sc(x[i])` is a double: `=` on it is the language's, not an unknown call.
    [(ok, why)] = _verdicts(
        """\
        double f(Scale sc) {
          std::vector<double> y(1000), x(1000, 1.0);
          for (int i = 0; i < 1000; i++) {
            y[i] = sc(x[i]);
          }
          return y[7];
        }
        """
    )
    assert ok, why


def test_a_lambda_result_is_typed_with_its_parameters() -> None:
    [(ok, why)] = _verdicts(
        """\
        double f() {
          std::vector<double> y(1000), x(1000, 1.0);
          double a = 0.5, b = 2.0;
          auto affine = [=](double v) { return a * v + b; };
          for (int i = 0; i < 1000; i++) {
            y[i] = affine(x[i]);
          }
          return y[7];
        }
        """
    )
    assert ok, why


def test_a_lambda_parameter_does_not_outlive_the_lambdas_call() -> None:
    # Inlining `sq(x[i])` binds `c` to a double; after the call `c` is the
    # Counted again, whose `+=` counts its calls in a static member.
    verdicts = _verdicts(
        """\
        struct Counted {
          double t = 0.0;
          static long calls;
          Counted &operator+=(double v) { t += v; ++calls; return *this; }
        };
        double f() {
          std::vector<double> x(1000, 1.0), y(1000);
          Counted c;
          auto sq = [](double c) { return c * c; };
          for (int i = 0; i < 1000; i++) {
            y[i] = sq(x[i]);
          }
          for (int i = 0; i < 1000; i++) {
            c += y[i];
          }
          return c.t;
        }
        """
    )
    assert [ok for ok, _ in verdicts] == [True, False], verdicts


def test_a_store_through_a_class_subscript_is_a_write_not_only_a_call() -> None:
    # `w[i]` is a double now: the store through the reference operator[]
    # returns must still count, or the carried `w[i - 1]` goes unseen.
    [(ok, _)] = _verdicts(
        """\
        void f(Field &w) {
          for (int i = 1; i < 1000; i++) {
            w[i] = w[i - 1] + 1.0;
          }
        }
        """
    )
    assert not ok


def test_a_carried_store_through_an_accessor_operator_is_refused_in_every_form() -> (
    None
):
    verdicts = _verdicts(
        """\
        void bump(double &x) { x += 1.0; }
        void f(Field &w) {
          for (int i = 1; i < 1000; i++) { w[i] += w[i - 1]; }
          for (int i = 0; i < 999; i++) { ++w[i]; w[i + 1] = 0.0; }
          for (int i = 1; i < 1000; i++) { bump(w[i]); w[i - 1] = 1.0; }
          for (int i = 1; i < 1000; i++) { double &r = w[i]; r = w[i - 1]; }
          for (int i = 1; i < 1000; i++) { w(i) = w(i - 1) * 0.5; }
          for (int i = 0; i < 999; i++) { ++w(i); w(i + 1) = 2.0; }
        }
        """
    )
    assert [ok for ok, _ in verdicts] == [False] * 6, verdicts


def test_a_store_through_an_accessor_operator_is_its_members_element() -> None:
    # `w[i]` and `w(i)` of `return v[i];` are `w.v[i]`: apart from iteration
    # to iteration, as the accessor methods `d.x(i)` are.
    verdicts = _verdicts(
        """\
        void f(Field &w) {
          for (int i = 0; i < 1000; i++) { w[i] = 2.0 * i; }
          for (int i = 0; i < 1000; i++) { w[i] += 1.0; }
          for (int i = 0; i < 1000; i++) { ++w(i); }
          for (int i = 0; i < 1000; i++) { double &r = w[i]; r = w[i] * 3.0; }
        }
        """
    )
    assert all(ok for ok, _ in verdicts), verdicts


_VEC3 = """\
struct Vec3 {
  double x = 0.0, y = 0.0;
  Vec3() {}
  Vec3(double a, double b) : x(a), y(b) {}
  Vec3 operator*(double s) const { return Vec3(x * s, y * s); }
  Vec3 &operator+=(const Vec3 &o) { x += o.x; y += o.y; return *this; }
};
"""


def test_a_member_operators_result_has_its_class() -> None:
    # `p[j] * w[j]` is a Vec3: `f += ...` sums a Vec3 into the iteration's own
    # `f`, field by field, so the outer loop is parallel.
    verdicts = _verdicts(
        _VEC3
        + """\
        double f() {
          std::vector<Vec3> p(100), out(100);
          std::vector<double> w(100, 0.5);
          for (int i = 0; i < 100; i++) {
            Vec3 f;
            for (int j = 0; j < 100; j++) {
              f += p[j] * w[j];
            }
            out[i] = f;
          }
          return out[3].x;
        }
        """
    )
    assert verdicts[0][0], verdicts


def test_a_member_operator_with_an_effect_stays_a_call_of_unknown_effects() -> None:
    verdicts = _verdicts(
        """\
        static long scaled = 0;
        struct Vec3 {
          double x = 0.0, y = 0.0;
          Vec3() {}
          Vec3(double a, double b) : x(a), y(b) {}
          Vec3 operator*(double s) const { ++scaled; return Vec3(x * s, y * s); }
          Vec3 &operator+=(const Vec3 &o) { x += o.x; y += o.y; return *this; }
        };
        double f() {
          std::vector<Vec3> p(100), out(100);
          for (int i = 0; i < 100; i++) {
            Vec3 f;
            f += p[i] * 2.0;
            out[i] = f;
          }
          return out[3].x;
        }
        """
    )
    assert not verdicts[0][0], verdicts
