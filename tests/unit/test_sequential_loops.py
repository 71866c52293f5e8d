"""`while` and `do ... while` loops in the cost rules: their bodies repeat."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop
from accls.analysis.sequential_loops import repeating_do_loops, sequential_line
from accls.frontend import parse_source


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


DO_TIME_LOOP = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    int main(int argc, char **argv) {
      int n = atoi(argv[1]), steps = atoi(argv[2]), it = 0;
      double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
      double checksum = 0.0;
      for (int i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; }
      do
      {
        for (int i = 0; i < n; i++) a[i] += 0.5 * b[i];
        it++;
      } while (it < steps);
      for (int i = 0; i < n; i++) checksum += a[i];
      printf("checksum %f\\n", checksum);
      return 0;
    }
    """
)


def test_a_checksum_after_a_do_while_time_loop_stays_serial() -> None:
    found = _by_line(DO_TIME_LOOP)
    assert found[13].profitable is False
    assert found[13].why.startswith("verification:")
    assert "after the loop at line 8" in found[13].why  # the `do` keyword's line
    assert found[10].profitable is not False  # the kernel keeps its pragma


def test_a_do_while_walking_data_repeats_nothing() -> None:
    # The condition's `it` indexes `b`: a loop over data, not a time loop.
    text = DO_TIME_LOOP.replace("a[i] += 0.5 * b[i];", "a[i] += 0.5 * b[it];")
    assert repeating_do_loops(parse_source(text), "main") == []
    found = _by_line(text)
    assert not found[13].why.startswith("verification:")
    assert found[13].profitable is not False


def test_a_do_while_without_loops_repeats_nothing() -> None:
    text = DO_TIME_LOOP.replace(
        "for (int i = 0; i < n; i++) a[i] += 0.5 * b[i];", "a[0] += 0.5 * b[0];"
    )
    assert repeating_do_loops(parse_source(text), "main") == []


def test_the_front_end_names_each_loop_statement() -> None:
    source = parse_source(DO_TIME_LOOP)
    kinds = [b.statement for b in source.branches if b.kind == "loop"]
    assert kinds == ["for", "do", "for", "for"]
    (body,) = repeating_do_loops(source, "main")
    assert sequential_line(source, body) == 8


CHECK_IN_DO = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    int main(int argc, char **argv) {
      int n = atoi(argv[1]), steps = atoi(argv[2]), more = 1;
      double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
      for (int i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; }
      for (int it = 0; it < steps; it++) {
        for (int i = 0; i < n; i++) a[i] += 0.5 * b[i];
      }
      do {
        for (int i = 0; i < n; i++) b[i] = a[i] * 0.5 + b[i];
        double sum = 0.0;
        for (int i = 0; i < n; i++) sum += b[i];
        printf("sum %f\\n", sum);
        more = getchar() != 'q';
      } while (more);
      return 0;
    }
    """
)


def test_loops_in_a_do_while_body_do_not_run_once() -> None:
    found = _by_line(CHECK_IN_DO)
    # Both run every iteration of the `do`: no one-off pass, no verification.
    assert not found[11].why.startswith("one-off")
    assert found[11].profitable is not False
    assert not found[13].why.startswith("verification:")
    assert found[13].profitable is not False


CALLED_IN_WHILE = textwrap.dedent(
    """\
    #include <math.h>
    #define N 100000
    void again(int n, double *p) {
      for (int i = 0; i < n; i++) p[i] = sqrt(p[i]) * 0.25;
    }
    double p[N], q[N];
    int main(int argc, char **argv) {
      int steps = argc * 10, left = argc;
      for (int it = 0; it < steps; it++) {
        for (int i = 0; i < N; i++) q[i] = p[i] * 0.5 + q[i];
      }
      while (left-- > 0)
        again(N, p);
      return (int)q[0];
    }
    """
)


def test_a_function_called_in_a_while_loop_does_not_run_once() -> None:
    found = _by_line(CALLED_IN_WHILE)
    assert not found[4].why.startswith("one-off")
    assert found[4].profitable is not False
