"""A callee reading members of an object the loop writes other members of."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, ProgramSummaries, analyze
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


_HELD = """\
#include <cstdlib>
#include <vector>
typedef double Real_t;
template <typename T>
T *Allocate(size_t size) { return static_cast<T *>(malloc(sizeof(T) * size)); }
class Mesh {
 public:
  void AllocateStrains(int n) {
    m_dxx = Allocate<Real_t>(n);
    m_dyy = Allocate<Real_t>(n);
  }
  SHARE
  Real_t& x(int i) { return m_x[i]; }
  Real_t& v(int i) { return m_v[i]; }
  Real_t& dxx(int i) { return m_dxx[i]; }
  Real_t& dyy(int i) { return m_dyy[i]; }
  std::vector<Real_t> m_x;
  std::vector<Real_t> m_v;
  Real_t *m_dxx;
  Real_t *m_dyy;
  Real_t **m_rows;
};
static void collect(Mesh& m, int k, Real_t *out) {
  out[0] = READ(k);
  out[1] = READ(k + 1);
}
void f(Mesh& m, int n) {
  for (int k = 0; k < n; k++) {
    Real_t pair[2];
    Real_t twice[2];
    collect(m, k, pair);
    twice[0] = 2.0 * pair[0];
    collect(m, k, twice);  // the address of `twice` escapes: a pointer may hold it
    m.v(k) = pair[0];
    WRITE(k) = twice[0] + pair[1];
  }
}
"""


def _held(read: str, write: str, share: str = "") -> tuple[bool, str]:
    text = _HELD.replace("SHARE", share).replace("READ", read)
    text = text.replace("WRITE", write)
    program = ProgramSummaries(whole=True)  # every file of the program read
    facts = analyze(parse_source(text, "k.cpp"), AnalysisOptions(program=program))
    [fact] = [f for f in facts.facts if f.loop.function == "f"]
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


def test_a_pointer_member_holding_only_fresh_blocks_is_apart_from_a_vector() -> None:
    ok, why = _held("m.x", "m.dxx")
    assert ok, why


def test_pointer_members_holding_distinct_blocks_are_apart() -> None:
    ok, why = _held("m.dyy", "m.dxx")
    assert ok, why


def test_a_pointer_member_set_to_another_stays_refused() -> None:
    ok, why = _held("m.dyy", "m.dxx", "void Share() { m_dyy = m_dxx; }")
    assert not ok
    assert "collect()" in why


def test_a_pointer_member_into_a_vector_stays_refused() -> None:
    for share in (
        "void Share() { m_dxx = &m_x[0]; }",
        "void Share() { m_dxx = m_x.data(); }",
    ):
        ok, why = _held("m.x", "m.dxx", share)
        assert not ok, share
        assert "collect()" in why


def test_without_the_whole_program_a_pointer_member_stays_refused() -> None:
    text = _HELD.replace("SHARE", "").replace("READ", "m.x").replace("WRITE", "m.dxx")
    facts = analyze(parse_source(text, "k.cpp")).facts
    [fact] = [f for f in facts if f.loop.function == "f"]
    assert not fact.parallel
