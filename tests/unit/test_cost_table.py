"""The cost model's table setup: a fill of a stack table no parallel loop divides."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop
from accls.server.hover_text import Offer, render_hover
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.explain import LoopReport

# A triangular fill of stencil weights (its inner trip count depends on `jj`), then
# a kernel that reads them at its inner loops' indices only.
WEIGHTS = textwrap.dedent(
    """\
    void run(long n, double *restrict in, double *restrict out) {
      double weight[2 * RADIUS + 1][2 * RADIUS + 1];
      for (int jj = 1; jj <= RADIUS; jj++) {
        for (int ii = -jj + 1; ii < jj; ii++) {
          weight[RADIUS + ii][RADIUS + jj] = 1.0 / (4.0 * jj * (2.0 * jj - 1) * RADIUS);
          weight[RADIUS + ii][RADIUS - jj] = -1.0 / (4.0 * jj * (2.0 * jj - 1));
        }
        weight[RADIUS + jj][RADIUS + jj] = 1.0 / (4.0 * jj * RADIUS);
      }
      for (long i = RADIUS; i < n - RADIUS; i++)
        for (int k = -RADIUS; k <= RADIUS; k++)
          out[i] += weight[RADIUS + k][RADIUS] * in[i + k];
    }
    """
)
FILL = 3  # the line of the weights' fill


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


def test_a_fill_of_a_stack_table_of_fixed_size_is_setup() -> None:
    found = _by_line(WEIGHTS)
    assert found[FILL].profitable is False
    assert found[FILL].why.startswith("table setup: it fills `weight`")
    assert found[10].profitable is not False  # the kernel grows with `n`


def test_a_table_on_the_heap_is_not_a_stack_table() -> None:
    text = WEIGHTS.replace(
        "double weight[2 * RADIUS + 1][2 * RADIUS + 1];",
        "double (*weight)[2 * RADIUS + 1] = malloc(64);",
    )
    assert not _by_line(text)[FILL].why


def test_a_table_sized_by_a_variable_is_not_fixed_by_the_build() -> None:
    text = WEIGHTS.replace(
        "double weight[2 * RADIUS + 1][2 * RADIUS + 1];",
        "int r = RADIUS + (int)n;\n  double weight[2 * r + 1][2 * r + 1];",
    )
    assert not _by_line(text)[FILL + 1].why


def test_a_table_a_parallel_loop_shares_out_keeps_its_pragma() -> None:
    # The kernel reads `weight` at its own variable: the fill first touches its data.
    text = WEIGHTS.replace("weight[RADIUS + k][RADIUS]", "weight[i % RADIUS][RADIUS]")
    text = text.replace("out[i] +=", "out[i] = out[i] +")
    text = text.replace(
        "for (long i = RADIUS; i < n - RADIUS; i++)",
        "for (long i = RADIUS; i < 2 * RADIUS; i++)",
    )
    found = _by_line(text)
    assert not found[FILL].why.startswith("table setup")


def test_a_fill_that_reads_other_data_keeps_its_pragma() -> None:
    text = WEIGHTS.replace(
        "= 1.0 / (4.0 * jj * RADIUS);", "= in[jj] / (4.0 * jj * RADIUS);"
    )
    assert not _by_line(text)[FILL].why


def test_a_fill_that_calls_a_function_of_the_file_keeps_its_pragma() -> None:
    text = "double f(int j);\n" + WEIGHTS.replace(
        "= 1.0 / (4.0 * jj * RADIUS);", "= f(jj);"
    )
    assert not _by_line(text)[FILL + 1].why


def test_the_hover_says_why_the_table_fill_stays_serial() -> None:
    analysis = analyze_text(WEIGHTS, options=AnalysisOptions(dialect="omp"))
    options = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    fill = next(s for s in suggest_file(analysis, options) if s.loop.line == FILL)
    report = LoopReport(
        facts=fill.facts,
        answers=(Offer(label="openmp", suggestion=fill, status="compiles"),),
        estimate=estimate_loop(analysis, fill.loop, False),
    )
    text = render_hover(report, explain="[Explain](command:x)", markdown=True)
    assert "- why: table setup: it fills `weight`" in text


# Points set up in a table of structs on the stack: each iteration stores fields and
# reads back one it stored in an earlier statement; then a kernel through a call.
POINTS = textwrap.dedent(
    """\
    typedef struct { int no; int at; double *row; } point;
    double work(point p, double *d);
    void track(int n, int elems, double *rows, double *restrict d) {
      point pts[NPOINTS];
      for (int i = 0; i < n; i++) {
        pts[i].no = i;
        pts[i].at = pts[i].no * elems;
        pts[i].row = rows;
      }
      for (int t = 0; t < 100; t++)
        for (int i = 0; i < n; i++)
          d[i] += work(pts[i], rows);
    }
    """
)


def test_a_fill_of_struct_fields_that_reads_back_its_own_stores_is_setup() -> None:
    found = _by_line(POINTS)
    assert found[5].profitable is False
    assert found[5].why.startswith("table setup: it fills `pts`")


def test_a_map_over_a_stack_table_that_reads_its_old_values_keeps_its_pragma() -> None:
    text = POINTS.replace("pts[i].at = pts[i].no * elems;", "pts[i].at += elems;")
    assert not _by_line(text)[5].why


def test_a_sibling_fill_or_an_allocation_loop_shares_nothing_out() -> None:
    # A second fill that reads back its own `pts[i].no`, and a loop allocating per
    # point, index `pts` with their own variable: neither divides the table's data.
    text = POINTS.replace(
        "  for (int t = 0;",
        "  for (int i = 0; i < n; i++) { pts[i].no = i; pts[i].at = pts[i].no; }\n"
        "  for (int i = 0; i < n; i++) pts[i].row = malloc(pts[i].at);\n"
        "  for (int t = 0;",
    )
    text = "#include <stdlib.h>\n" + text
    found = _by_line(text)
    assert found[6].why.startswith("table setup: it fills `pts`")
