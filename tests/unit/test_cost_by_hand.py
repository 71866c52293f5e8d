"""The cost model leaves serial one thread's part of work divided by hand."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


PART = textwrap.dedent(
    """\
    #include <omp.h>
    void part(double *restrict x, const double *restrict y, long n) {
      int me = omp_get_thread_num();
      int threads = omp_get_num_threads();
      long chunk = n / threads;
      long first = me * chunk;
      for (long i = first; i < first + chunk; i++) {
        x[i] = 2.0 * y[i] + 1.0;
      }
    }
    """
)


def test_a_loop_over_the_threads_own_part_stays_serial() -> None:
    found = _by_line(PART)[7]
    assert found.profitable is False
    assert found.why.startswith("work divided by hand")


def test_a_bound_from_the_thread_count_alone_counts_too() -> None:
    text = PART.replace("i = first; i < first + chunk", "i = 0; i < chunk")
    assert _by_line(text)[7].why.startswith("work divided by hand")


def test_a_loop_whose_bounds_ignore_the_thread_keeps_its_pragma() -> None:
    text = PART.replace("i = first; i < first + chunk", "i = 0; i < n")
    assert _by_line(text)[7].profitable is not False
