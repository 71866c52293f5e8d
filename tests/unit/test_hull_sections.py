"""The hull section of an array read over two extents that no fact orders."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze_text
from accls.analysis.hull_sections import hull_section
from accls.frontend import Poly, parse_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

PARAMS = "int n, int m, int a, double *restrict x, const double *restrict y"


def hull(body: str) -> str | None:
    source = parse_source(f"void f({PARAMS}) {{\n{dedent(body)}\n}}\n")
    loop = source.nests[0]
    facts = [
        inner.upper - inner.lower - Poly.const(1)
        for inner in loop.walk()
        if inner.lower is not None and inner.upper is not None
    ]
    return hull_section(loop, "y", facts)


def test_two_extents_take_the_larger_end() -> None:
    got = hull("""\
        for (int i = 0; i < n; i++) {
          double t = y[i];
          for (int j = 0; j < m; j++)
            x[i * m + j] = t * y[j];
        }
        """)
    assert got == "y[0:(n > m ? n : m)]"


def test_ends_the_loops_order_need_no_hull() -> None:
    got = hull("""\
        for (int i = 0; i < n; i++)
          for (int j = 0; j < n; j++)
            x[i * n + j] = y[i] + y[j];
        """)
    assert got is None


def test_starts_no_fact_orders_give_no_hull() -> None:
    got = hull("""\
        for (int i = 0; i < n; i++) {
          double t = y[i + a];
          for (int j = 0; j < m; j++)
            x[i * m + j] = t * y[j];
        }
        """)
    assert got is None


def test_a_reference_a_branch_may_skip_gives_no_hull() -> None:
    got = hull("""\
        for (int i = 0; i < n; i++) {
          double t = i < m ? 0.0 : 1.0;
          if (i < 3) t = y[i];
          for (int j = 0; j < m; j++)
            x[i * m + j] = t * y[j];
        }
        """)
    assert got is None


def test_a_loop_variable_after_its_loop_gives_no_hull() -> None:
    got = hull("""\
        for (int i = 0; i < n; i++) {
          int j;
          for (j = 0; j < m; j++)
            x[i * m + j] = y[j];
          x[i * m] += y[j] + y[i];
        }
        """)
    assert got is None


def test_the_outer_loop_takes_gang_with_the_hull_copied_in() -> None:
    text = f"""\
void f({PARAMS}) {{
  for (int i = 0; i < n; i++) {{
    double t = y[i];
    for (int j = 0; j < m; j++)
      x[i * m + j] = t * y[j];
  }}
}}
"""
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    top = suggest_file(analyze_text(text), opts)[0]
    assert top.pragma is not None, top.reasons
    clauses = {c.name: c.args for c in top.pragma.clauses}
    assert clauses.get("copyin") == "y[0:(n > m ? n : m)]"
    assert "gang" in clauses
