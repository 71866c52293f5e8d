"""ACC124 for a shared scratch array a callee fills in every iteration."""

from __future__ import annotations

import textwrap

import pytest
from accls.analysis.checks import check_file

_SRC = """\
    static void fill_coeffs(double x, double *c) {
      c[0] = x * 0.5;
      c[1] = x * x;
    }
    void run(const double *x, double *out, int n) {
      {decl}
      {pragma}
      for (int i = 0; i < n; i++) {
        fill_coeffs(x[i], tmp);
        out[i] = tmp[0] + tmp[1];
      }
    }
"""


def _errors(pragma: str, decl: str = "double tmp[2];") -> list[tuple[str, int]]:
    src = textwrap.dedent(_SRC).replace("{pragma}", pragma).replace("{decl}", decl)
    found = check_file(src, "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


@pytest.mark.parametrize(
    "pragma", ["#pragma omp parallel for", "#pragma acc parallel loop"]
)
def test_a_shared_array_a_callee_fills_races(pragma: str) -> None:
    assert _errors(pragma) == [("ACC124", 9)]


@pytest.mark.parametrize(
    "pragma",
    [
        "#pragma omp parallel for private(tmp)",
        "#pragma omp parallel for firstprivate(tmp)",
        "#pragma acc parallel loop private(tmp)",
        "#pragma omp simd",
    ],
)
def test_a_private_copy_or_one_thread_does_not_race(pragma: str) -> None:
    assert _errors(pragma) == []


def test_an_array_declared_in_the_region_is_each_threads_own() -> None:
    decl = "#pragma omp parallel\n  {\n  double tmp[2];"
    src = textwrap.dedent(_SRC).replace("{decl}", decl)
    src = src.replace("{pragma}", "#pragma omp for").replace("  }\n}", "  }\n  }\n}")
    found = check_file(src, "t.c")
    assert [f.code for f in found if f.level.name == "ERROR"] == []


def test_an_array_declared_before_the_region_is_shared_by_its_threads() -> None:
    decl = "double tmp[2];\n  #pragma omp parallel\n  {"
    src = textwrap.dedent(_SRC).replace("{decl}", decl)
    src = src.replace("{pragma}", "#pragma omp for").replace("  }\n}", "  }\n  }\n}")
    found = check_file(src, "t.c")
    assert [f.code for f in found if f.level.name == "ERROR"] == ["ACC124"]
