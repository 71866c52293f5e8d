"""Element types keep pointers apart: typedef chains resolved, one class per width."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import SourceFile, parse_source


def _verdicts(text: str, name: str = "k.c") -> list[tuple[bool, str]]:
    source: SourceFile = parse_source(dedent(text), name)
    facts = analyze(source).facts
    return [
        (f.parallel, " | ".join(o.message for o in f.obstacles))
        for f in sorted(facts, key=lambda f: f.loop.line)
    ]


def test_typedefs_of_different_scalars_never_overlap() -> None:
    [(ok, why)] = _verdicts(
        """\
        typedef double real8;
        typedef real8 Real_t;
        typedef int Index_t;
        void f(Real_t *x, const Index_t *idx, int n) {
          for (int i = 0; i < n; i++) {
            x[i] = idx[i] * 2.0;
          }
        }
        """
    )
    assert ok, why


def test_typedefs_of_one_scalar_may_overlap() -> None:
    [(ok, why)] = _verdicts(
        """\
        typedef double Real_t;
        void f(Real_t *x, const double *y, int n) {
          for (int i = 0; i < n; i++) {
            x[i] = y[i + 1];
          }
        }
        """
    )
    assert not ok
    assert "may overlap" in why


def test_signed_and_unsigned_of_one_width_may_overlap() -> None:
    [(ok, why)] = _verdicts(
        """\
        void f(int *x, const unsigned *y, int n) {
          for (int i = 0; i < n; i++) {
            x[i] = y[i + 1];
          }
        }
        """
    )
    assert not ok
    assert "may overlap" in why


def test_size_t_and_unsigned_long_may_overlap() -> None:
    [(ok, why)] = _verdicts(
        """\
        #include <stddef.h>
        void f(size_t *x, const unsigned long *y, int n) {
          for (int i = 0; i < n; i++) {
            x[i] = y[i + 1];
          }
        }
        """
    )
    assert not ok
    assert "may overlap" in why


def test_an_unknown_typedef_may_name_anything() -> None:
    [(ok, _)] = _verdicts(
        """\
        void f(Real_t *x, const int *idx, int n) {
          for (int i = 0; i < n; i++) {
            x[i] = idx[i] * 2.0;
          }
        }
        """
    )
    assert not ok


_DOMAIN = """\
#include <vector>
typedef double Real_t;
typedef int Index_t;
class Domain {
 public:
  Real_t& fx(Index_t i) { return m_fx[i]; }
  Index_t count(Index_t i) { return m_start[i + 1] - m_start[i]; }
  Index_t *corners(Index_t i) { return &m_corners[m_start[i]]; }
  std::vector<Real_t> m_fx;
  Index_t *m_start;
  Index_t *m_corners;
  Real_t *m_weights;
};
"""


def test_a_pointer_member_of_another_scalar_misses_a_vector_member() -> None:
    [(ok, why), _] = _verdicts(
        _DOMAIN
        + """\
        void f(Domain& d, int n) {
          for (Index_t g = 0; g < n; g++) {
            Index_t *list = d.corners(g);
            Real_t s = 0.0;
            for (Index_t k = 0; k < d.count(g); k++) s += list[k];
            d.fx(g) = s;
          }
        }
        """,
        "k.cpp",
    )
    assert ok, why


def test_a_pointer_member_of_the_same_scalar_may_reach_a_vector_member() -> None:
    [(ok, why)] = _verdicts(
        _DOMAIN
        + """\
        void f(Domain& d, int n) {
          for (Index_t g = 0; g < n; g++) {
            d.fx(g) = d.m_weights[g + 1];
          }
        }
        """,
        "k.cpp",
    )
    assert not ok
    assert "m_weights" in why
