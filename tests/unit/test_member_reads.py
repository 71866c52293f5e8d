"""A callee reading members of an object the loop writes other members of."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

_CLASS = """\
#include <vector>
typedef double Real_t;
typedef int Index_t;
class Domain {
 public:
  Real_t& x(Index_t i) { return m_x[i]; }
  Real_t& v(Index_t i) { return m_v[i]; }
  std::vector<Real_t> m_x;
  std::vector<Real_t> m_v;
  Real_t *m_w;
  Index_t *m_list;
};
"""


def _verdict(body: str) -> tuple[bool, str]:
    facts = analyze(parse_source(_CLASS + dedent(body), "k.cpp")).facts
    first = min(facts, key=lambda f: f.loop.line)
    return first.parallel, " | ".join(o.message for o in first.obstacles)


_LOOP = """\
void f(Domain& d, int n) {
  for (int k = 0; k < n; k++) {
    Real_t s = sum(d, k);
    WRITE = s;
  }
}
"""


def _program(callee: str, write: str) -> str:
    return dedent(callee) + _LOOP.replace("WRITE", write)


def test_a_callee_reading_other_members_than_the_loop_writes() -> None:
    ok, why = _verdict(
        _program(
            """\
            static Real_t sum(Domain& dom, int k) {
              return dom.x(k) + dom.x(k + 1) + dom.m_list[k];
            }
            """,
            "d.v(k)",
        )
    )
    assert ok, why


def test_a_callee_reading_the_member_the_loop_writes() -> None:
    ok, why = _verdict(
        _program(
            """\
            static Real_t sum(Domain& dom, int k) { return dom.x(k + 1); }
            """,
            "d.x(k)",
        )
    )
    assert not ok
    assert "reads `d` through an argument" in why


def test_a_callee_reading_a_pointer_member_of_the_written_type() -> None:
    ok, why = _verdict(
        _program(
            """\
            static Real_t sum(Domain& dom, int k) { return dom.m_w[k + 1]; }
            """,
            "d.v(k)",
        )
    )
    assert not ok
    assert "through an argument" in why


def test_a_callee_passing_the_object_on() -> None:
    ok, why = _verdict(
        _program(
            """\
            static Real_t other(Domain& dom, int k) { return dom.v(k + 1); }
            static Real_t sum(Domain& dom, int k) {
              Real_t t = other(dom, k);
              return dom.x(k) + t;
            }
            """,
            "d.v(k)",
        )
    )
    assert not ok
    assert "reads `d` through an argument" in why


def test_members_of_a_union_overlap() -> None:
    facts = analyze(
        parse_source(
            dedent(
                """\
                union U { double a[4]; double b[4]; };
                static double get(U& u, int k) { return u.a[k]; }
                void f(U& u) {
                  for (int k = 0; k < 4; k++) {
                    u.b[3 - k] = get(u, k);
                  }
                }
                """
            ),
            "k.cpp",
        )
    ).facts
    assert not facts[0].parallel
