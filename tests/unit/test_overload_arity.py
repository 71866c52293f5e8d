"""A call of an overloaded name runs the one definition its argument count fits."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source


def _verdict(helpers: str, call: str) -> tuple[bool, str]:
    text = (
        "int counter;\n"
        + dedent(helpers)
        + dedent(
            f"""\
            void f(const double *__restrict x, double *__restrict y, int n) {{
              for (int i = 0; i < n; i++) {{
                y[i] = {call};
              }}
            }}
            """
        )
    )
    facts = analyze(parse_source(text, "k.cpp")).facts
    [fact] = [f for f in facts if f.loop.function == "f"]
    return fact.parallel, " | ".join(o.message for o in fact.obstacles)


_COUNTING = """\
static double h(double a) { return 2.0 * a; }
static double h(double a, double b) { counter++; return a + b; }
"""


def test_the_count_picks_the_overload_that_writes_nothing() -> None:
    ok, why = _verdict(_COUNTING, "h(x[i])")
    assert ok, why


def test_the_count_picks_the_overload_that_writes_a_global() -> None:
    ok, why = _verdict(_COUNTING, "h(x[i], 1.0)")
    assert not ok
    assert "counter" in why


def test_an_overload_calling_another_by_its_count() -> None:
    ok, why = _verdict(
        """\
        static double vol(double a, double b, double c) { return a * b * c; }
        static double vol(const double *p) { return vol(p[0], p[1], p[2]); }
        """,
        "vol(&x[3 * i])",
    )
    assert ok, why


def test_a_default_argument_leaves_both_overloads() -> None:
    ok, why = _verdict(
        """\
        static double h(double a) { return 2.0 * a; }
        static double h(double a, double b = 1.0) { counter++; return a + b; }
        """,
        "h(x[i])",
    )
    assert not ok
    assert "defined more than once" in why


def test_an_ellipsis_leaves_both_overloads() -> None:
    ok, why = _verdict(
        """\
        static double h(double a) { return 2.0 * a; }
        static double h(double a, ...) { counter++; return a; }
        """,
        "h(x[i])",
    )
    assert not ok
    assert "defined more than once" in why


def test_argument_counts_of_definitions() -> None:
    source = parse_source(
        dedent(
            """\
            struct S { double m(int k, int j = 0) { return k + j; } };
            double a(void) { return 0; }
            double b(int, double) { return 0; }
            double c(int k, ...) { return k; }
            """
        ),
        "k.cpp",
    )
    counts = {f.name: (f.min_args, f.max_args) for f in source.functions}
    assert counts == {"S::m": (2, 3), "a": (0, 0), "b": (2, 2), "c": (0, None)}


def test_defaults_a_prototype_gives_leave_both_overloads() -> None:
    ok, why = _verdict(
        """\
        static double h(double a, double b = 1.0);
        static double h(const double *p) { return p[0]; }
        static double h(double a, double b) { counter++; return a + b; }
        """,
        "h(x[i])",
    )
    assert not ok
    assert "defined more than once" in why


def test_too_few_arguments_rule_out_only_a_static_definition() -> None:
    ok, why = _verdict(
        """\
        static double h(const double *p) { return p[0]; }
        double h(double a, double b) { counter++; return a + b; }
        """,
        "h(x[i])",
    )
    assert not ok  # a header may give `b` a default
    assert "defined more than once" in why


def test_a_call_its_one_definition_cannot_take_runs_another_overload() -> None:
    ok, why = _verdict(
        """\
        static double h(double a) { return 2.0 * a; }
        """,
        "h(x[i], 1.0)",
    )
    assert not ok
    assert "does not take that many arguments" in why
