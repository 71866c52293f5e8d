"""The cost model respects a parallel pragma its author commented out."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop


def _by_line(text: str, dialect: str = "omp") -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect=dialect))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


COPY = textwrap.dedent(
    """\
    void copy(double *restrict x, const double *restrict y, long n) {
      // a comment of its own
      //#pragma omp parallel for shared(x, y, n)

      for (long i = 0; i < n; i++) {
        x[i] = 2.0 * y[i] + 1.0;
      }
    }
    """
)


def test_a_loop_under_a_commented_out_parallel_pragma_stays_serial() -> None:
    found = _by_line(COPY)[5]
    assert found.profitable is False
    assert found.why.startswith("left serial by its author")


def test_a_block_comment_disables_it_too() -> None:
    text = COPY.replace(
        "//#pragma omp parallel for shared(x, y, n)", "/* #pragma omp parallel for */"
    )
    assert _by_line(text)[5].why.startswith("left serial by its author")


def test_a_plain_loop_keeps_its_pragma() -> None:
    text = COPY.replace("//#pragma omp parallel for shared(x, y, n)", "// scale")
    assert _by_line(text)[5].profitable is not False


def test_a_commented_pragma_that_parallelizes_nothing_keeps_the_pragma() -> None:
    for directive in ("//#pragma omp barrier", "//#pragma omp critical"):
        text = COPY.replace("//#pragma omp parallel for shared(x, y, n)", directive)
        assert _by_line(text)[5].profitable is not False, directive


def test_code_between_the_comment_and_the_loop_keeps_the_pragma() -> None:
    text = COPY.replace("// a comment of its own", "").replace(
        "\n\n  for", "\n  x[0] = 0.0;\n  for"
    )
    found = _by_line(text)
    assert all(e.profitable is not False for e in found.values())


def test_a_commented_out_older_loop_above_keeps_the_pragma() -> None:
    # The old version of the loop is commented out with its pragma: that pragma
    # belongs to the commented loop, not to the live one below it.
    text = COPY.replace(
        "//#pragma omp parallel for shared(x, y, n)",
        "//#pragma omp parallel for shared(x, y, n)\n  // for (long i = 0; i < n; i++)"
        "\n  //   x[i] = y[i];",
    )
    found = _by_line(text)
    assert all(e.profitable is not False for e in found.values())
