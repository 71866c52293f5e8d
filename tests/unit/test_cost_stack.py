"""The cost model's stack bound: sizes an automatic array uses cannot be large."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop
from accls.analysis.cost_stack import STACK_BYTES, stack_caps
from accls.frontend import parse_source

WEIGHTS = textwrap.dedent(
    """\
    #include <stdlib.h>
    void run(long n, double *restrict in, double *restrict out) {
      double weight[2 * RADIUS + 1][2 * RADIUS + 1];
      for (int ii = 1; ii <= RADIUS; ii++) {
        weight[RADIUS][RADIUS + ii] = 1.0 / (2.0 * ii * RADIUS);
        weight[RADIUS][RADIUS - ii] = -1.0 / (2.0 * ii * RADIUS);
      }
      for (long i = RADIUS; i < n - RADIUS; i++)
        for (int k = -RADIUS; k <= RADIUS; k++)
          out[i] += weight[RADIUS][RADIUS + k] * in[i + k];
    }
    """
)


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


def test_a_size_that_dimensions_an_array_on_the_stack_is_bounded() -> None:
    source = parse_source(WEIGHTS)
    loop = source.nests[0]
    cap, array = stack_caps(source, loop, {})["RADIUS"]
    assert array == "weight"
    assert (2 * cap + 1) ** 2 <= STACK_BYTES < (2 * cap + 3) ** 2


def test_a_fill_of_a_table_on_the_stack_is_small() -> None:
    found = _by_line(WEIGHTS)
    assert found[4].profitable is False
    assert "`weight` outgrows the stack" in found[4].why
    assert found[8].profitable is not False  # the kernel grows with `n`


def test_a_table_on_the_heap_bounds_nothing() -> None:
    text = WEIGHTS.replace(
        "double weight[2 * RADIUS + 1][2 * RADIUS + 1];",
        "double (*weight)[2 * RADIUS + 1][2 * RADIUS + 1] = malloc(64);",
    )
    assert "stack" not in _by_line(text)[4].why


def test_a_size_the_function_can_change_bounds_nothing() -> None:
    text = WEIGHTS.replace("RADIUS", "radius").replace(
        "double *restrict out) {", "double *restrict out, int radius) {"
    )
    assert "stack" not in _by_line(text)[4].why


def test_a_size_the_function_sets_bounds_nothing() -> None:
    # `m` is a global of a header the file does not show; the function sets it.
    text = WEIGHTS.replace("RADIUS", "m").replace(
        "double weight[", "m = 8;\n  double weight["
    )
    assert "stack" not in _by_line(text)[5].why
