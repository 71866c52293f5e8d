"""Loop bounds that are min/max, `?:`, floord/ceild: exact limits, not refusals."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.frontend import Limit, Loop, Poly, parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

MACROS = """\
#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define ceild(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))
#define max(x, y) ((x) > (y) ? (x) : (y))
#define min(x, y) ((x) < (y) ? (x) : (y))
"""


def loops(src: str) -> tuple[Loop, ...]:
    return parse_source(MACROS + dedent(src)).loops()


def facts(src: str) -> list[LoopFacts]:
    return list(analyze_text(MACROS + dedent(src)).facts)


def codes(fact: LoopFacts) -> set[str]:
    return {o.code for o in fact.obstacles}


def sym(name: str) -> Poly:
    return Poly.sym(name)


def test_conditional_lower_bound_is_a_max() -> None:
    (loop,) = loops("""
    void f(int n, int a, int b, double *restrict x) {
      for (int i = (a > b ? a : b); i < n; i++) x[i] = 0.0;
    }
    """)
    assert set(loop.limits) == {Limit(sym("a")), Limit(sym("b"))}


def test_macro_min_and_strict_upper_bound() -> None:
    (loop,) = loops("""
    void f(int n, int t, double *restrict x) {
      for (int i = 0; i < min(n, t + 4); i++) x[i] = 0.0;
    }
    """)
    want = {
        Limit(sym("n") - Poly.const(1), upper=True),
        Limit(sym("t") + Poly.const(3), upper=True),
    }
    assert set(loop.limits) == want


def test_floord_and_ceild_scale_the_variable() -> None:
    (up, down) = loops("""
    void f(int n, double *restrict x) {
      for (int i = ceild(n, 3); i <= floord(n * 2, 4); i++) x[i] = 0.0;
      for (int i = floord(n, 4); i > ceild(n, 8); i--) x[i] = 0.0;
    }
    """)
    # 3*i >= n;  4*i <= 2*n
    assert set(up.limits) == {
        Limit(sym("n"), 3),
        Limit(sym("n").scale(2), 4, upper=True),
    }
    # 4*i <= n;  i > ceil(n/8)  iff  8*i >= n + 8
    assert set(down.limits) == {
        Limit(sym("n"), 4, upper=True),
        Limit(sym("n") + Poly.const(8), 8),
    }


def test_a_macro_is_judged_by_what_it_computes() -> None:
    src = """
    #define floorx(n, d) ((n) / (d))
    #define maxx(x, y) ((x) + (y))
    void f(int n, int t, double *restrict x) {
      for (int i = maxx(0, t); i <= floorx(n, 4); i++) x[i] = 0.0;
    }
    """
    # truncating division is not floord; a sum is not a max
    (loop,) = loops(src)
    assert loop.limits == ()
    assert "shape" in codes(facts(src)[0])


def test_min_as_a_lower_bound_is_not_convex() -> None:
    (loop,) = loops("""
    void f(int n, int t, double *restrict x) {
      for (int i = min(0, t); i < n; i++) x[i] = 0.0;
    }
    """)
    assert loop.limits == ()


TILED = """
void f(int n, double *restrict d, const double *restrict b) {
  for (int t1 = 0; t1 <= floord(n - 1, 32); t1++)
    for (int c2 = 32 * t1; c2 <= min(n - 1, 32 * t1 + 31); c2++)
      d[c2] = b[c2] * b[c2];
}
"""


def test_tiles_are_independent_with_exact_bounds() -> None:
    outer, inner = facts(TILED)
    assert outer.parallel
    assert inner.parallel


def test_window_with_max_and_min_is_parallel() -> None:
    (fact,) = facts("""
    void f(int n, int t, double *restrict c, const double *restrict b) {
      for (int i = max(0, t - 4); i <= min(n - 1, t + 4); i++)
        c[i] = 2.0 * b[i];
    }
    """)
    assert fact.parallel


NOT_EQUAL = """
void f(int n, double *restrict x) {
  for (int i = 0; i != n; i += STEP) x[i] = 0.0;
}
"""


def test_not_equal_with_a_unit_step_is_canonical() -> None:
    (fact,) = facts(NOT_EQUAL.replace("STEP", "1"))
    assert fact.parallel
    (fact,) = facts(NOT_EQUAL.replace("STEP", "2"))
    assert "shape" in codes(fact)


def test_openacc_refuses_not_equal() -> None:
    src = MACROS + dedent(NOT_EQUAL.replace("STEP", "1"))
    for model, pragma in ((Dialect.OPENMP, True), (Dialect.OPENACC, False)):
        analysis = analyze_text(src, options=AnalysisOptions(dialect=model.sentinel))
        (s,) = suggest_file(analysis, SuggestOptions(dialect=model, target=Target.CPU))
        assert (s.pragma is not None) == pragma
