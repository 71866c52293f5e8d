"""A scalar only one iteration touches (`if (i == 0) x = ..`) stays shared."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import LoopFacts, ScalarClass, analyze_text


def loop(body: str) -> LoopFacts:
    src = dedent(f"""
    double a[100];
    int f(int n, int k) {{
      int x = -1;
      for (int i = 0; i < n; i++) {{
        a[i] = 2.0 * i;
        {body}
      }}
      return x;
    }}
    """)
    return next(f for f in analyze_text(src).facts if f.loop.var == "i")


def test_a_store_under_the_first_iteration_is_shared() -> None:
    fact = loop("if (i == 0) x = 7;")
    assert fact.parallel, [o.message for o in fact.obstacles]
    (x,) = [s for s in fact.scalars if s.name == "x"]
    assert x.cls is ScalarClass.SHARED
    assert x.written


def test_a_fixed_parameter_pins_too() -> None:
    assert loop("if (k == i) x = i;").parallel


def test_a_data_condition_does_not_pin() -> None:
    fact = loop("if (a[i] > 3.0) x = 1;")
    assert not fact.parallel
    assert "race even when they store one value" in fact.obstacles[0].message


def test_an_else_branch_does_not_pin() -> None:
    assert not loop("if (i == 0) a[i] = 1.0; else x = i;").parallel


def test_a_changing_value_does_not_pin() -> None:
    assert not loop("int m = i / 2; if (i == m) x = i;").parallel


def test_a_store_in_an_inner_loop_does_not_pin() -> None:
    assert not loop("for (int j = 0; j < 3; j++) if (i == 0) x = j;").parallel
