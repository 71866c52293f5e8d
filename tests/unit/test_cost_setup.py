"""The cost model's setup reasons: index tables, one-off passes, few iterations."""

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


INDEX_TABLES = textwrap.dedent(
    """\
    void step(int nr, int nc, int *iN, int *jW, double *restrict img,
              double *restrict out, double *restrict a) {
      for (int i = 0; i < nr; i++) iN[i] = i - 1;
      for (int j = 0; j < nc; j++) jW[j] = j - 1;
      for (int j = 0; j < nc; j++) a[j] = 0.0;
      for (int j = 0; j < nc; j++)
        for (int i = 0; i < nr; i++)
          out[i + nr * j] = img[iN[i] + nr * jW[j]] + a[j];
    }
    """
)


def test_a_fill_of_index_tables_the_kernel_reads_in_subscripts_is_setup() -> None:
    found = _by_line(INDEX_TABLES)
    # iN is indexed by the kernel's inner variable; jW by its parallel one, but
    # only inside the subscript of img: both are index tables, not shared data.
    assert found[3].profitable is False
    assert "filling `iN`" in found[3].why
    assert found[4].profitable is False
    assert "filling `jW`" in found[4].why


def test_a_fill_of_data_the_kernel_shares_out_keeps_its_pragma() -> None:
    found = _by_line(INDEX_TABLES)
    assert found[5].profitable is None  # a[j]: first touch of the kernel's data
    assert found[6].profitable is None


ONE_OFF = textwrap.dedent(
    """\
    #include <math.h>
    void run(int n, int steps, double *restrict img, double *restrict c) {
      for (int i = 0; i < n; i++) img[i] = exp(img[i] / 255);
      for (int i = 0; i < n; i++) c[i] = 0.0;
      for (int it = 0; it < steps; it++) {
        for (int i = 0; i < n; i++) c[i] = img[i] * 0.5 + c[i];
        for (int i = 0; i < n; i++) img[i] = img[i] + c[i] * 0.25;
      }
      for (int i = 0; i < n; i++) img[i] = log(img[i]) * 255;
      double norm = 0.0;
      for (int i = 0; i < n; i++) norm += fabs(img[i]);
      c[0] = norm;
    }
    void once(int n, double *restrict img, double *restrict c) {
      for (int i = 0; i < n; i++) img[i] = exp(img[i] / 255);
      for (int i = 0; i < n; i++) c[i] = img[i] * 0.5;
    }
    void rows(int n, double *restrict img, double *restrict c) {
      for (int i = 0; i < n; i++) img[i] = exp(img[i] / 255);
      for (int r = 0; r < n; r++)
        for (int i = 0; i < n; i++) c[r * n + i] = img[i] * c[r * n + i];
    }
    """
)


def test_a_map_before_or_after_a_time_loop_of_kernels_is_a_one_off_pass() -> None:
    found = _by_line(ONE_OFF)
    assert found[3].profitable is False
    assert found[3].why.startswith("one-off pass: it runs once, before the loop at")
    assert "line 5" in found[3].why
    assert found[9].profitable is False
    assert "after the loop at line 5" in found[9].why


def test_fills_checksums_kernels_and_passes_without_a_time_loop_stay() -> None:
    found = _by_line(ONE_OFF)
    assert found[4].profitable is None  # a fill: first touch of `c`
    assert found[6].profitable is None  # the kernels themselves
    assert found[7].profitable is None
    assert found[11].profitable is None  # a norm: experts share those out too
    assert found[15].profitable is None  # no loop repeats the kernel
    assert found[16].profitable is None
    # The loop after it walks rows of data with `r`: not a time loop.
    assert found[19].profitable is None


FEW = textwrap.dedent(
    """\
    #include <math.h>
    #define NC 7
    #define NP 150
    #define NM 12
    double tx[NC][NP], big[NM][100000];
    void tables(void) {
      for (int k = 0; k < NC; k++)
        for (int n = 0; n < NP; n++) tx[k][n] = cos(n * 0.1) * (2.0 + k);
      for (int m = 0; m < NM; m++)
        for (int n = 0; n < 100000; n++) big[m][n] = sin(n * 0.5) * m;
    }
    """
)


def test_a_few_iterations_of_fixed_small_work_gain_too_little() -> None:
    found = _by_line(FEW)
    assert found[7].units is not None
    assert found[7].units > 20_000  # above a region's cost, yet too few to share
    assert found[7].profitable is False
    assert found[7].why.startswith("few iterations: 7,")


def test_a_few_heavy_iterations_keep_their_pragma() -> None:
    found = _by_line(FEW)
    assert found[9].profitable is True  # 12 materials of 10^5 points each


BUILD = textwrap.dedent(
    """\
    #include <stdlib.h>
    void solve(int n, int steps, const double *restrict v, double *restrict y) {
      double *m = malloc(n * sizeof(double));
      double *w = malloc(n * sizeof(double));
      if (!m || !w) return;
      for (int i = 0; i < n; i++) m[i] = v[i] * 0.5 + v[n - 1 - i];
      w[0] = 1.0;
      for (int i = 0; i < n; i++) w[i] = v[i] * 2.0;
      for (int it = 0; it < steps; it++)
        for (int i = 0; i < n; i++) y[i] = y[i] * m[i] + w[i];
      free(m);
      free(w);
    }
    """
)


def test_a_pass_that_builds_fresh_memory_keeps_its_pragma() -> None:
    found = _by_line(BUILD)
    assert found[6].profitable is None  # first touch of the fresh `m`
    assert found[8].profitable is False  # `w` was touched at line 7
    assert "before the loop at line 9" in found[8].why


WEIGHTS = textwrap.dedent(
    """\
    void stencil(int n, double *restrict in, double *restrict out) {
      double w[2 * R + 1][2 * R + 1];
      for (int jj = -R; jj <= R; jj++)
        for (int ii = -R; ii <= R; ii++) w[jj + R][ii + R] = 0.0;
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) out[j * n + i] = 0.0;
      for (int j = R; j < n - R; j++)
        for (int i = R; i < n - R; i++)
          for (int jj = -R; jj <= R; jj++)
            out[j * n + i] += w[jj + R][R] * in[(j + jj) * n + i];
      for (int ii = 1; ii <= R; ii++) w[R][ii + R] = 1.0;
    }
    """
)


def test_a_nest_filling_a_coefficient_table_is_setup() -> None:
    found = _by_line(WEIGHTS)
    # `w` is read at the kernel's inner index `jj` only: every thread reads all of
    # it; the fill at line 11 indexes it by its own variable, but reads no memory.
    assert found[3].profitable is False
    assert "per innermost iteration, filling `w`" in found[3].why


def test_a_nest_filling_the_data_the_kernel_shares_out_keeps_its_pragma() -> None:
    found = _by_line(WEIGHTS)
    assert found[5].profitable is None  # out[j * n + i]: the kernel's rows
    assert found[7].profitable is None


LOCALS = textwrap.dedent(
    """\
    static void disk(int *d, int radius) {
      int diameter = radius * 2 - 1;
      for (int x = 0; x < diameter * diameter; x++) d[x] = x % diameter < radius;
    }
    static void ring(int *d, int radius) {
      for (int x = 0; x < radius; x++) d[x] = x * 2 + radius;
    }
    void filter(int *d, double *restrict w, int n) {
      int radius = 5;
      int diameter = radius * 2 - 1;
      disk(d, radius);
      ring(d, radius);
      ring(d, n);
      for (int x = 0; x < diameter; x++) w[x] = d[x] * 0.5 + w[x + 1];
      int m = n;
      for (int x = 0; x < m; x++) w[x] = w[x] * 2.0 + w[x + n];
      int k = 4;
      k = n;
      for (int x = 0; x < k; x++) w[x] = w[x] * 3.0 + w[x + n];
    }
    """
)


def test_constant_locals_and_arguments_fix_trip_counts() -> None:
    found = _by_line(LOCALS)
    assert found[14].iterations == 9  # `diameter` is 9: a known small loop
    assert found[14].profitable is False
    assert found[3].iterations == 81  # every call of `disk` passes radius 5
    assert found[3].profitable is False


def test_locals_written_again_and_arguments_that_differ_stay_open() -> None:
    found = _by_line(LOCALS)
    assert found[6].units is None  # `ring` gets 5 and `n`
    assert found[16].units is None  # `m` copies `n`
    assert found[19].units is None  # `k` is written twice


CALLED_ONCE = textwrap.dedent(
    """\
    #include <math.h>
    #define N 100000
    void finish(int n, double *p) {
      for (int i = 0; i < n; i++) p[i] = sqrt(p[i]) * 0.5;
    }
    void place(int n, double *p) { finish(n, p); }
    void again(int n, double *p) {
      for (int i = 0; i < n; i++) p[i] = sqrt(p[i]) * 0.25;
    }
    double p[N], q[N];
    int main(int argc, char **argv) {
      int steps = argc * 10;
      place(N, p);
      for (int it = 0; it < steps; it++) {
        for (int i = 0; i < N; i++) q[i] = p[i] * 0.5 + q[i];
        again(N, p);
      }
      return (int)q[0];
    }
    """
)


def test_a_map_in_a_function_run_once_beside_a_time_loop_is_a_one_off_pass() -> None:
    found = _by_line(CALLED_ONCE)
    assert found[4].profitable is False  # `finish` runs once, through `place`
    assert found[4].why.startswith("one-off pass: `finish()` runs once, beside")


def test_a_map_in_a_function_called_every_time_step_keeps_its_pragma() -> None:
    found = _by_line(CALLED_ONCE)
    assert found[8].profitable is True  # `again` runs inside the time loop
    assert not found[15].why.startswith("one-off")  # the kernel


UNUSED = textwrap.dedent(
    """\
    double used(const double *a, int n);
    double spare(const double *a, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += a[i] * a[i];
      return s;
    }
    double used(const double *a, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += a[i];
      return s;
    }
    double (*pick)(const double *, int);
    double callback(const double *a, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++) s += a[i] * 2.0;
      return s;
    }
    int main(int argc, char **argv) {
      double a[1] = {0.0};
      pick = callback;
      return (int)used(a, argc);
    }
    """
)


def test_a_loop_of_a_function_the_program_never_calls_never_runs() -> None:
    found = _by_line(UNUSED)
    assert found[4].profitable is False
    assert found[4].why == (
        "unused: nothing in the program calls `spare()`, so the loop never runs"
    )


def test_called_and_pointed_to_functions_keep_their_loops() -> None:
    found = _by_line(UNUSED)
    assert not found[9].why.startswith("unused")
    assert not found[15].why.startswith("unused")  # called through `pick`


FIELDS = textwrap.dedent(
    """\
    struct nb { float dist; int id; };
    void reset(struct nb *nbs, struct nb *far, int k) {
      for (int j = 0; j < k; j++) nbs[j].dist = 1e9f;
      for (int j = 0; j < k; j++) far[j].dist += 1.0f;
    }
    """
)


def test_a_light_fill_of_a_struct_field_is_setup_and_an_update_is_not() -> None:
    found = _by_line(FIELDS)
    assert found[3].profitable is False
    assert "filling `nbs`" in found[3].why
    assert not found[4].why.startswith("light loop")  # `+=` reads the field


UNPROVED_KERNEL = textwrap.dedent(
    """\
    #include <math.h>
    void run(int n, int steps, double *a, double *b) {
      for (int i = 0; i < n; i++) a[i] = exp(a[i] / 255);
      for (int it = 0; it < steps; it++)
        for (int i = 0; i < n; i++) b[i] = a[i] * 0.5 + b[i];
    }
    """
)


def test_a_pass_beside_a_time_loop_of_kernels_not_proved_parallel_is_one_off() -> None:
    # `a` and `b` may overlap: the kernel is not proved parallel, yet it repeats.
    found = _by_line(UNPROVED_KERNEL)
    assert found[3].why.startswith("one-off pass: it runs once, before the loop at")
    assert "line 4" in found[3].why
