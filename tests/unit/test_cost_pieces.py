"""Loops that compute one item of a larger loop get no region of their own."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop

ROWS = textwrap.dedent(
    """\
    double squash(double x);
    void layer(int n1, int n2, double **w, const double *x, double *y) {
      for (int j = 1; j <= n2; j++) {
        double sum = 0.0;
        for (int k = 0; k <= n1; k++)
          sum += w[k][j] * x[k];
        y[j] = squash(sum);
      }
    }
    void steps(int steps, int n, const double *a, double *out) {
      for (int t = 0; t < steps; t++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
          s += a[i];
        out[0] = squash(s);
      }
    }
    void fixed(int n, double **w, double *y) {
      for (int j = 0; j < n; j++) {
        double sum = 0.0;
        for (int k = 0; k < 4; k++)
          sum += w[j][k];
        y[j] = squash(sum);
      }
    }
    long groups(const int *count, const long *v, long *out) {
      int offset = 0;
      for (int m = 0; m < 12; m++) {
        long s = 0;
        for (int i = offset; i < offset + count[m]; i++)
          s += v[i];
        out[m] = s;
        offset += count[m];
      }
      return out[0];
    }
    """
)

ITEMS = textwrap.dedent(
    """\
    static double dist(const double *p, const double *q, int dims) {
      double d = 0.0;
      for (int i = 0; i < dims; i++)
        d += (p[i] - q[i]) * (p[i] - q[i]);
      return d;
    }
    static int nearest(const double *p, double **centres, int k, int dims) {
      int best = 0;
      double low = 1e30;
      for (int c = 0; c < k; c++) {
        double d = dist(p, centres[c], dims);
        if (d < low) { low = d; best = c; }
      }
      return best;
    }
    static void sweep(double *a, const double *b, int n) {
      for (int i = 0; i < n; i++)
        a[i] = 0.5 * (a[i] + b[i]);
    }
    void run(double **pts, double **centres, int *label, int n, int k, int dims,
             double *a, const double *b, int steps, const int *perm) {
      for (int i = 0; i < n; i++)  // an indirect store: not proved parallel
        label[perm[i]] = nearest(pts[i], centres, k, dims);
      for (int t = 0; t < steps; t++)
        sweep(a, b, n);
    }
    """
)


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, offload=False)
        for loop in analysis.source.loops()
    }


def test_a_reduction_per_row_of_a_serial_loop_is_an_inner_reduction() -> None:
    found = _by_line(ROWS)
    assert found[5].profitable is False
    assert found[5].why.startswith("inner reduction: `sum`")
    assert "line 3" in found[5].why


def test_a_reduction_inside_a_time_loop_keeps_its_region() -> None:
    found = _by_line(ROWS)
    assert found[13].profitable is None  # `t` never indexes the data: a time step
    assert not found[13].why


def test_a_reduction_of_constant_length_is_left_to_the_size_rule() -> None:
    found = _by_line(ROWS)
    assert not found[21].why.startswith("inner reduction")


def test_a_reduction_inside_a_short_group_loop_keeps_its_region() -> None:
    # Twelve groups cannot feed the threads: the samples of one group can.
    found = _by_line(ROWS)
    assert not found[30].why.startswith("inner reduction")


def test_a_function_called_once_per_item_gets_no_region() -> None:
    found = _by_line(ITEMS)
    assert found[3].profitable is False
    assert found[3].why.startswith("per-item function: `dist()`")
    assert "line 10" in found[3].why  # the centre loop that calls it per item
    assert found[10].profitable is False  # `nearest` is called per point itself
    assert "line 22" in found[10].why


def test_a_function_called_per_time_step_keeps_its_region() -> None:
    found = _by_line(ITEMS)
    assert found[17].profitable is None
    assert not found[17].why
    assert not found[22].why  # the point loop: the one to share out


TILE = textwrap.dedent(
    """\
    #define BS 16
    void tile(double *a, int n) {
      for (int i = 0; i < BS; i++)
        for (int j = i; j < BS; j++) {
          double sum = a[i * BS + j];
          for (int k = 0; k < i; k++)
            sum -= a[i * BS + k] * a[k * BS + j];
          a[i * BS + j] = sum;
        }
      for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
          a[i * BS + k] = a[k] * 2.0;
    }
    """
)


def test_a_loop_bounded_by_a_short_outer_loop_is_small() -> None:
    # `k < i` with `i < 16`: 5 units an iteration, `i` counted up to its bound 16.
    found = _by_line(TILE)
    assert found[6].profitable is False
    assert found[6].why.startswith("small loop: at most 80 work units (`i` ≤ 16")


def test_a_loop_bounded_by_an_open_outer_loop_keeps_its_region() -> None:
    found = _by_line(TILE)
    assert not found[11].why.startswith("small loop")
