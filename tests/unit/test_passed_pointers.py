"""`p = &a[8*k]` handed to a callee that only reads through it leaves `a` read."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

_HEAD = """\
#include <vector>
class Mesh {
 public:
  int* nodes(int k) { return &m_nodes[8 * k]; }
  double& x(int i) { return m_x[i]; }
  double& v(int i) { return m_v[i]; }
  std::vector<int> m_nodes;
  std::vector<double> m_x;
  std::vector<double> m_v;
};
"""

_LOOP = """\
void f(Mesh& m, int n) {
  for (int k = 0; k < n; k++) {
    double local[8];
    const int* e = m.nodes(k);
    gather(m, e, local);
    m.v(k) = local[0] + local[7] + e[1];
  }
}
"""


def _verdict(callee: str) -> tuple[bool, str]:
    text = _HEAD + dedent(callee) + _LOOP
    facts = analyze(parse_source(text, "k.cpp")).facts
    first = min((f for f in facts if f.loop.function == "f"), key=lambda f: f.loop.line)
    return first.parallel, " | ".join(o.message for o in first.obstacles)


def test_a_callee_reading_through_the_pointer() -> None:
    ok, why = _verdict(
        """\
        static void gather(Mesh& m, const int* e, double* out) {
          for (int j = 0; j < 8; j++) out[j] = m.x(e[j]);
        }
        """
    )
    assert ok, why


def test_a_callee_writing_through_the_pointer() -> None:
    ok, why = _verdict(
        """\
        static void gather(Mesh& m, const int* e, double* out) {
          for (int j = 0; j < 8; j++) out[j] = m.x(e[j]);
          const_cast<int*>(e)[0] = 0;
        }
        """
    )
    assert not ok
    assert "`m->m_nodes` (written" in why


def test_a_callee_keeping_the_pointer() -> None:
    ok, why = _verdict(
        """\
        const int* kept;
        static void gather(Mesh& m, const int* e, double* out) {
          kept = e;
          for (int j = 0; j < 8; j++) out[j] = m.x(e[j]);
        }
        """
    )
    assert not ok
    assert "`m->m_nodes` (written" in why


def test_a_callee_handing_the_pointer_on() -> None:
    ok, why = _verdict(
        """\
        void other(const int* e);
        static void gather(Mesh& m, const int* e, double* out) {
          other(e);
          for (int j = 0; j < 8; j++) out[j] = m.x(e[j]);
        }
        """
    )
    assert not ok
    assert "`m->m_nodes` (written" in why
