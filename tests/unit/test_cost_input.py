"""The cost model's input-bound passes: a light loop beside the reads of its data."""

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


READ_TABLE = textwrap.dedent(
    """\
    #include <stdio.h>
    void read_table(FILE *f, int n, double x0, double dr, double *buf) {
      for (int i = 0; i < n; i++)
        fscanf(f, "%lf", buf + i);
      for (int i = 1; i < n; i++) {
        double r = x0 + i * dr;
        buf[i] /= r;
      }
    }
    """
)


def test_a_light_pass_over_values_just_read_from_a_file_stays_serial() -> None:
    found = _by_line(READ_TABLE)[5]
    assert found.profitable is False
    assert found.why.startswith("input-bound:")
    assert "line 3" in found.why


def test_the_same_pass_without_the_reads_keeps_its_pragma() -> None:
    text = READ_TABLE.replace(
        '  for (int i = 0; i < n; i++)\n    fscanf(f, "%lf", buf + i);\n', ""
    )
    found = _by_line(text)[3]
    assert found.profitable is not False


def test_a_heavy_kernel_over_values_read_from_a_file_keeps_its_pragma() -> None:
    text = READ_TABLE.replace(
        "buf[i] /= r;",
        "for (int k = 0; k < 16; k++) buf[i] = buf[i] * r + 1.0 / (r + k);",
    )
    found = _by_line(text)[5]
    assert found.profitable is not False
    assert not found.why.startswith("input-bound")


def test_a_pass_over_another_size_than_the_reads_keeps_its_pragma() -> None:
    text = READ_TABLE.replace("int n,", "int n, int m,").replace(
        "i = 1; i < n;", "i = 1; i < m;"
    )
    found = _by_line(text)[5]
    assert not found.why.startswith("input-bound")
    assert found.profitable is not False
