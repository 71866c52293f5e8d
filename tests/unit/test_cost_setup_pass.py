"""Light passes in code that runs once (setup, teardown) get no region of their own."""

from __future__ import annotations

import textwrap
from pathlib import Path

from accls.analysis import AnalysisOptions, ProgramSummaries, analyze_text
from accls.analysis.cost import Estimate, estimate_loop
from accls.project import ProjectIndex

SETUP = textwrap.dedent(
    """\
    void setup(int n, double *restrict a, const double *restrict b) {
      for (int i = 0; i < n; i++)
        a[i] = b[i];
    }
    void step(int n, double *restrict a, const double *restrict b) {
      for (int i = 0; i < n; i++)
        a[i] = b[i];
    }
    double total(int n, const double *v) {
      double sum = 0.0;
      for (int i = 0; i < n; i++)
        sum += v[i];
      return sum;
    }
    """
)

MAIN = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    void setup(int n, double *restrict a, const double *restrict b);
    void step(int n, double *restrict a, const double *restrict b);
    double total(int n, const double *v);
    int main(int argc, char **argv) {
      int n = atoi(argv[1]);
      double *a = malloc(n * sizeof(double));
      double *b = malloc(n * sizeof(double));
      setup(n, a, b);
      for (int t = 0; t < 100; t++)
        step(n, a, b);
      printf("%f\\n", total(n, a));
      return 0;
    }
    """
)


def _by_function(
    text: str, path: str, program: ProgramSummaries | None = None
) -> dict[str, Estimate]:
    options = AnalysisOptions(dialect="omp", program=program)
    analysis = analyze_text(text, path, options=options)
    return {
        loop.function or "": estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


def _indexed(tmp_path: Path) -> dict[str, Estimate]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "setup.c").write_text(SETUP)
    (root / "main.c").write_text(MAIN)
    index = ProjectIndex(str(root), cache_dir=str(tmp_path / "cache"))
    index.build()
    path = str(root / "setup.c")
    return _by_function(SETUP, path, index.program_for(path))


def test_a_light_pass_in_a_function_the_program_calls_once_is_setup(
    tmp_path: Path,
) -> None:
    found = _indexed(tmp_path)
    assert found["setup"].profitable is False
    assert found["setup"].why.startswith("setup pass")
    assert found["total"].profitable is False  # the sum printed at the end


def test_a_light_pass_called_in_a_loop_keeps_its_pragma(tmp_path: Path) -> None:
    assert _indexed(tmp_path)["step"].profitable is None


def test_without_the_whole_program_a_light_pass_keeps_its_pragma() -> None:
    found = _by_function(SETUP, "setup.c")
    assert all(e.profitable is None for e in found.values())


ONE_FILE = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    static void copy(int n, double *restrict a, const double *restrict b) {
      for (int i = 0; i < n; i++)
        a[i] = b[i];
    }
    static void scale(int n, double *restrict a, const double *restrict b) {
      for (int i = 0; i < n; i++)
        a[i] = 2.0 * b[i] * a[i] + b[i] * b[i];
    }
    int main(int argc, char **argv) {
      int n = atoi(argv[1]);
      double *a = calloc(n, sizeof(double));
      double *b = calloc(n, sizeof(double));
      copy(n, a, b);
      scale(n, a, b);
      printf("%f\\n", a[0]);
      return 0;
    }
    """
)


def test_in_a_whole_program_file_a_light_pass_run_once_is_setup_not_a_heavier_one() -> (
    None
):
    found = _by_function(ONE_FILE, "one.c")
    assert found["copy"].profitable is False
    assert found["scale"].profitable is not False  # about 9 units an element
