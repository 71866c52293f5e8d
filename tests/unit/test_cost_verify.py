"""The cost model's verification passes: a check after the timed part that reports."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop
from accls.server.hover_text import Offer, render_hover
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.explain import LoopReport


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, False)
        for loop in analysis.source.loops()
    }


CHECKSUM = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    #include <math.h>
    int main(int argc, char **argv) {
      int n = atoi(argv[1]), steps = atoi(argv[2]);
      double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
      double checksum = 0.0, ref = 0.5 * n * steps;
      for (int i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; }
      for (int it = 0; it < steps; it++) {
        for (int i = 0; i < n; i++) a[i] += 0.5 * b[i];
      }
      for (int i = 0; i < n; i++) checksum += a[i];
      double err = fabs(checksum - ref) / ref;
      if (err > 1e-8) {
        printf("ERROR: checksum %f\\n", checksum);
        exit(EXIT_FAILURE);
      }
      printf("Solution validates: %f\\n", checksum);
      return 0;
    }
    """
)


def test_a_checksum_after_the_time_loop_that_only_reports_stays_serial() -> None:
    found = _by_line(CHECKSUM)
    assert found[12].profitable is False
    assert found[12].why.startswith("verification:")
    assert "line 9" in found[12].why
    assert found[10].profitable is not False  # the kernel keeps its pragma


def test_a_checksum_whose_value_feeds_the_computation_keeps_its_pragma() -> None:
    text = CHECKSUM.replace(
        "double err = fabs(checksum - ref) / ref;",
        "double err = fabs(checksum - ref) / ref;\n  a[0] = checksum;",
    )
    found = _by_line(text)
    assert not found[12].why.startswith("verification:")


def test_a_reduction_checked_without_a_repeated_part_keeps_its_pragma() -> None:
    # No time loop before it: the sum is the program's computation (or the test
    # of the reduction itself), not a check of work done elsewhere.
    text = CHECKSUM.replace("for (int it = 0; it < steps; it++) {", "{")
    found = _by_line(text)
    sums = [e for e in found.values() if "checksum" in e.summary or e.why]
    assert all(not e.why.startswith("verification:") for e in sums)
    assert found[12].profitable is not False


CHECK_FUNCTION = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    static double a[1 << 20];
    static int check(long n, int steps) {
      double asum = 0.0;
      for (long j = 0; j < n; j++) asum += a[j];
      return fabs(asum - 0.5 * n * steps) < 1e-8 * asum;
    }
    int main(int argc, char **argv) {
      long n = atol(argv[1]);
      int steps = atoi(argv[2]);
      for (int it = 0; it < steps; it++)
        for (long j = 0; j < n; j++) a[j] += 0.5;
      if (check(n, steps)) printf("Solution validates\\n");
      else exit(EXIT_FAILURE);
      return 0;
    }
    """
)


def test_a_check_function_whose_result_decides_a_message_stays_serial() -> None:
    found = _by_line(CHECK_FUNCTION)
    assert found[6].why.startswith("verification:")
    assert "line 12" in found[6].why


def test_a_sum_that_steers_a_loop_is_no_verification() -> None:
    text = CHECK_FUNCTION.replace(
        "if (check(n, steps)) printf", "while (check(n, steps)) printf"
    )
    assert not _by_line(text)[6].why.startswith("verification:")


def test_a_check_whose_branch_computes_is_no_verification() -> None:
    for branch in ("a[0] = 1.0", "main(0, argv)"):
        text = CHECK_FUNCTION.replace('printf("Solution validates\\n")', branch)
        assert branch in text
        assert not _by_line(text)[6].why.startswith("verification:")


def test_a_check_that_computes_per_element_keeps_its_pragma() -> None:
    text = CHECKSUM.replace(
        "checksum += a[i];", "checksum += fabs(a[i] - 0.5 * i * steps);"
    )
    found = _by_line(text)
    assert not found[12].why.startswith("verification:")


def test_the_hover_says_why_the_check_stays_serial() -> None:
    analysis = analyze_text(CHECKSUM, options=AnalysisOptions(dialect="omp"))
    options = SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    check = next(s for s in suggest_file(analysis, options) if s.loop.line == 12)
    report = LoopReport(
        facts=check.facts,
        answers=(Offer(label="openmp", suggestion=check, status="compiles"),),
        estimate=estimate_loop(analysis, check.loop, False),
    )
    text = render_hover(report, explain="[Explain](command:x)", markdown=True)
    assert "- why: verification: it runs once, after the loop at line 9" in text


NORM = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    #include <math.h>
    static void step(float *in, float *out, int n, int steps) {
      int t = 0;
      do {
        for (int i = 1; i < n - 1; i++) out[i] = 0.5f * (in[i - 1] + in[i + 1]);
        float *tmp = in; in = out; out = tmp;
        t++;
      } while (t < steps);
    }
    static float accuracy(float *x, float *y, int len) {
      float err = 0.0f;
      for (int i = 0; i < len; i++) {
        err += (x[i] - y[i]) * (x[i] - y[i]);
      }
      return sqrtf(err / len);
    }
    int main(int argc, char **argv) {
      int n = atoi(argv[1]), steps = atoi(argv[2]);
      float *a = calloc(n, sizeof(float)), *b = calloc(n, sizeof(float));
      float *c = calloc(n, sizeof(float));
      step(a, b, n, steps);
      float acc = accuracy(b, c, n);
      printf("Accuracy: %e\\n", acc);
      return 0;
    }
    """
)


def test_a_norm_of_two_stored_results_after_the_time_loop_stays_serial() -> None:
    # Heavier than a light check (two loads twice, three flops), but it only
    # compares data computed earlier: its variable indexes arrays, nothing more.
    found = _by_line(NORM)
    assert found[14].why.startswith("verification:")
    assert "only compares data stored earlier" in found[14].why
    assert found[7].profitable is not False  # the kernel keeps its pragma


def test_a_norm_against_a_reference_from_the_index_keeps_its_pragma() -> None:
    text = NORM.replace("(x[i] - y[i]) * (x[i] - y[i])", "(x[i] - i) * (y[i] - i)")
    assert not _by_line(text)[14].why.startswith("verification:")


def test_a_norm_whose_terms_call_a_function_keeps_its_pragma() -> None:
    text = NORM.replace("(x[i] - y[i]) * (x[i] - y[i])", "fabsf(x[i] - y[i])")
    assert not _by_line(text)[14].why.startswith("verification:")


def test_a_norm_inside_a_macro_that_uses_the_index_keeps_its_pragma() -> None:
    # The macro's expansion maps the element back to the whole invocation, which
    # also holds the index as a value: no comparison of stored data.
    text = NORM.replace(
        "(x[i] - y[i]) * (x[i] - y[i])", "SQ(x[i] - (i * 0.5f))"
    ).replace("#include <math.h>", "#include <math.h>\n#define SQ(v) ((v) * (v))")
    found = _by_line(text)
    assert not found[15].why.startswith("verification:")
