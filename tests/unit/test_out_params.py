"""A callee that stores `*p` before reading it defines the caller's `&x`."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import LoopFacts, analyze_text
from accls.analysis.out_params import must_write
from accls.frontend import parse_source


def callee(body: str) -> bool:
    src = dedent(f"void f(double a, double *fx, double *fy) {{ {body} }}")
    fn = parse_source(src).function("f")
    assert fn is not None
    return must_write(fn, 1)


def test_a_store_at_the_top_level_first_defines_it() -> None:
    assert callee("double t = a * 2;\n *fx = t;\n *fy = *fx + 1;")


def test_reading_first_does_not() -> None:
    assert not callee("*fx = *fx + a;")
    assert not callee("double t = *fx; *fx = t + a;")


def test_a_conditional_store_does_not() -> None:
    assert not callee("if (a > 0) *fx = a;")


def test_an_early_return_does_not() -> None:
    assert not callee("if (a > 9) return; *fx = a;")


def test_passing_the_pointer_on_does_not() -> None:
    assert not callee("g(fx); *fx = a;")


def test_indexing_past_the_slot_does_not() -> None:
    assert not callee("*fx = a; fx[1] = a;")


def loop(call: str, after: str = "") -> LoopFacts:
    src = dedent(f"""
    static void force(double a, double *fx, double *fy) {{ *fx = a; *fy = 2 * a; }}
    double out[100];
    double step(int n) {{
      double fx, fy;
      for (int i = 0; i < n; i++) {{
        {call};
        out[i] = fx + fy;
      }}
      return {after or "0.0"};
    }}
    """)
    return next(f for f in analyze_text(src).facts if f.loop.var == "i")


def test_the_loop_privatizes_out_parameters() -> None:
    fact = loop("force(out[i], &fx, &fy)")
    assert fact.parallel, [o.message for o in fact.obstacles]
    classes = {s.name: s.cls for s in fact.scalars}
    assert classes["fx"] == "private"
    assert classes["fy"] == "private"


def test_the_same_scalar_twice_stays_shared() -> None:
    assert not loop("force(out[i], &fx, &fx)").parallel


def test_a_value_used_after_the_loop_is_lastprivate_at_most() -> None:
    fact = loop("force(out[i], &fx, &fy)", after="fx")
    classes = {s.name: s.cls for s in fact.scalars}
    assert classes["fx"] in ("lastprivate", "carried")


def repoint(body: str) -> LoopFacts:
    src = dedent(f"""
    void f(int n, double *parts, double *other) {{
      double *q = other;
      for (int i = 0; i < n; i++) {{
        {body}
      }}
    }}
    """)
    return next(fact for fact in analyze_text(src).facts if fact.loop.var == "i")


def test_a_pointer_set_first_to_a_fixed_array_holds_still() -> None:
    fact = repoint("q = parts; q[i] = q[i] + 1.0;")
    assert fact.parallel, [o.message for o in fact.obstacles]


def test_a_pointer_used_before_it_is_set_moves() -> None:
    assert not repoint("q[i] = q[i] + 1.0; q = parts;").parallel


def test_a_pointer_set_under_a_condition_moves() -> None:
    assert not repoint("if (i > 2) q = parts; q[i] = 1.0;").parallel


def test_a_pointer_set_to_a_moving_source_moves() -> None:
    assert not repoint("q = parts; q[i] = 1.0; parts = other;").parallel
