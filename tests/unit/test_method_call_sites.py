"""A method of a class the source file defines: its calls are the file's."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <vector>
class Ops {
public:
  void axpy(const std::vector<double> &x, std::vector<double> &y) const {
    for (std::size_t i = 0; i < 99; ++i) {
      y[i] += 2.0 * x[i + 1] + m_d[i];
    }
  }
  std::vector<double> m_d;
};
EXTRA
int main() {
  Ops o;
  Ops *p = &o;
  std::vector<double> a(100, 1.0), b(100, 2.0);
  std::vector<double> &r = a;
  CALLS
  return (int)(b[0] + r[0] + p->m_d.size());
}
"""


def _parallel(calls: str, extra: str = "", path: str = "t.cpp") -> bool:
    text = _TEXT.replace("CALLS", calls).replace("EXTRA", extra)
    facts = [f for f in analyze_text(text, path=path).facts if f.loop.function]
    (fact,) = [f for f in facts if f.loop.function == "Ops::axpy"]
    return fact.parallel


def test_every_call_passing_distinct_vectors_proves_them_apart() -> None:
    assert _parallel("o.axpy(a, b); o.axpy(b, a);")


@pytest.mark.parametrize(
    "calls",
    [
        "o.axpy(a, a);",
        "o.axpy(a, b); o.axpy(r, a);",  # `r` is `a`
        "o.axpy(a, o.m_d);",  # `y` is `this->m_d`
        "o.axpy(a, b); p->axpy(a, p->m_d);",
    ],
)
def test_a_call_passing_one_vector_twice_keeps_the_refusal(calls: str) -> None:
    assert not _parallel(calls)


@pytest.mark.parametrize(
    "extra",
    [
        # A call through a template parameter is no call the file resolves.
        "template <typename T> void go(T &t, std::vector<double> &v) { t.axpy(v, v); }",
        # The address of the method: callers unseen.
        "auto taken = &Ops::axpy;",
        # Another class's method of that name: a call may be either.
        "struct Other { void axpy(int) {} };",
    ],
)
def test_a_use_of_the_name_no_call_stands_for_keeps_the_refusal(extra: str) -> None:
    assert not _parallel("o.axpy(a, b);", extra)


def test_a_header_s_class_may_be_called_from_other_files() -> None:
    assert not _parallel("o.axpy(a, b);", path="t.hpp")


_STATIC = """
#include <vector>
class Ops {
public:
  static void shift(const std::vector<double> &x, std::vector<double> &y) {
    for (std::size_t i = 0; i < 99; ++i) {
      y[i] = x[i + 1] + 1.0;
    }
  }
};
EXTRA
int main() {
  Ops *p = new Ops;
  Ops o;
  std::vector<double> u(100, 1.0), w(100, 2.0);
  CALLS
  delete p;
  return (int)u[0];
}
"""


def _static_parallel(calls: str, extra: str = "") -> bool:
    text = _STATIC.replace("CALLS", calls).replace("EXTRA", extra)
    (fact,) = [f for f in analyze_text(text, path="t.cpp").facts if f.loop.function]
    return fact.parallel


def test_a_static_method_s_calls_by_object_pass_no_this() -> None:
    assert _static_parallel("Ops::shift(w, u); o.shift(u, w); p->shift(w, u);")


@pytest.mark.parametrize(
    ("calls", "extra"),
    [
        # `p` is evaluated, not passed: the call passes `u` twice.
        ("Ops::shift(w, u); p->shift(u, u);", ""),
        # A call through a template parameter names no class.
        (
            "Ops::shift(w, u); go(o, u);",
            "template <typename T> void go(T &t, std::vector<double> &v) "
            "{ t.shift(v, v); }",
        ),
    ],
)
def test_a_static_method_passed_one_vector_twice_keeps_the_refusal(
    calls: str, extra: str
) -> None:
    assert not _static_parallel(calls, extra)
