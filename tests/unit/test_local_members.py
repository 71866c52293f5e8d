"""Members of a struct or union declared in the loop body are private with it."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import LoopFacts, analyze_text

HEAD = """
#include <stdint.h>
typedef union { double d; uint64_t bits; } word_t;
typedef struct { double x, y; } pt_t;
double in[100], o2[100];
uint64_t out[100];
pt_t shared_pt;
"""


def _facts(fn: str) -> LoopFacts:
    return analyze_text(HEAD + dedent(fn)).facts[0]


def test_union_declared_in_the_body_used_only_through_members() -> None:
    fact = _facts("""
    void f(void) {
      for (int i = 0; i < 100; i++) {
        word_t w;
        w.d = in[i];
        out[i] = w.bits >> 3;
      }
    }
    """)
    assert fact.parallel, [o.message for o in fact.obstacles]


def test_a_global_struct_member_stays_refused() -> None:
    fact = _facts("""
    void f(void) {
      for (int i = 0; i < 100; i++) {
        shared_pt.x = in[i];
        o2[i] = shared_pt.x;
      }
    }
    """)
    assert not fact.parallel


def test_a_static_local_struct_stays_refused() -> None:
    fact = _facts("""
    void f(void) {
      for (int i = 0; i < 100; i++) {
        static pt_t s;
        s.x = in[i];
        o2[i] = s.x;
      }
    }
    """)
    assert not fact.parallel


def test_an_outer_struct_of_the_same_name_stays_refused() -> None:
    fact = _facts("""
    void f(void) {
      pt_t p = {0.0, 0.0};
      for (int i = 0; i < 100; i++) {
        o2[i] = p.x;
        {
          pt_t p;
          p.x = in[i];
          o2[i] += p.x;
        }
        p.x = in[i];
      }
    }
    """)
    assert not fact.parallel
