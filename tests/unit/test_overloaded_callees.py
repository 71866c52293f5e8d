"""A callee that calls a function defined more than once has no summary."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

_LOOP = """\
static double g(double a) { return h(a, 1.0); }
void f(double *x, int n) {
  for (int i = 0; i < n; i++) {
    x[i] = g(x[i]);
  }
}
"""


def _verdict(helpers: str) -> tuple[bool, str]:
    text = "#include <vector>\nint counter;\n" + dedent(helpers) + _LOOP
    facts = analyze(parse_source(text, "k.cpp")).facts
    [fact] = [f for f in facts if f.loop.function == "f"]
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


def test_a_wrapper_of_an_overloaded_function_is_unknown() -> None:
    ok, why = _verdict(
        """\
        static double h(double a) { return a * 2.0; }
        static double h(double a, double b) { counter++; return a + b; }
        """
    )
    assert not ok
    assert "`h()`, defined more than once" in why


def test_a_wrapper_of_overloads_that_all_write_nothing_is_summarised() -> None:
    ok, why = _verdict(
        """\
        static float h(float a, float b) { return a * b; }
        static double h(double a, double b) { return a + b; }
        """
    )
    assert ok, why


def test_a_wrapper_of_one_definition_is_summarised() -> None:
    ok, why = _verdict(
        """\
        static double h(double a, double b) { return a + b; }
        """
    )
    assert ok, why
