"""Segment loops: one data-dependent piece per outer iteration gets no region."""

from __future__ import annotations

import textwrap

from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop

BOXES = textwrap.dedent(
    """\
    #define MAXATOMS 64
    void forces(int nBoxes, const int *count, const int *row, double *f,
                const double *r, double *y, const double *v, int steps, int n) {
      for (int box = 0; box < nBoxes; box++) {
        int nI = count[box];
        for (int i = MAXATOMS * box; i < MAXATOMS * box + nI; i++)
          f[i] = 2.0 * r[i];
      }
      for (int i = 0; i < n; i++)
        for (int k = row[i]; k < row[i + 1]; k++)
          y[k] = v[k] * 3.0;
      for (int t = 0; t < steps; t++)
        for (int i = 0; i < n; i++)
          y[i] = y[i] + 1.0;
      for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++)
          f[i] = f[i] - r[k];
      for (int t = 0; t < steps; t++) {
        int m = count[0] + n;
        for (int i = 0; i < m; i++)
          f[i] = f[i] * 0.5;
      }
      for (int r = 0; r < n; r++) {
        int first = r * steps;
        int last = first + steps - 1;
        for (int k = first; k <= last; k++)
          y[k] = v[k] + 1.0;
      }
      for (int r = 0; r < n; r++)
        for (int k = r * steps; k < (r + 1) * steps; k++)
          y[k] = v[k] * 2.0;
      int offset = 0;
      for (int m = 0; m < 12; m++) {
        for (int i = offset; i < offset + count[m]; i++)
          y[i] = v[i] * 4.0;
        offset += count[m];
      }
    }
    """
)


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, offload=False)
        for loop in analysis.source.loops()
    }


def test_a_box_of_atoms_read_per_outer_iteration_is_a_segment() -> None:
    found = _by_line(BOXES)
    assert found[6].profitable is False
    assert found[6].why.startswith("segment loop: its bound `nI`")
    assert "line 4" in found[6].why
    assert found[4].profitable is None  # the box loop itself: size unknown


def test_a_sparse_row_is_a_segment() -> None:
    found = _by_line(BOXES)
    assert found[10].profitable is False
    assert "row[i + 1]" in found[10].why or "row[i]" in found[10].why


def test_time_and_pivot_loops_are_not_segments() -> None:
    found = _by_line(BOXES)
    assert found[13].profitable is None  # whole data per time step
    assert found[16].profitable is None  # `n - k - 1`: large on average
    assert not found[16].why


def test_bounds_that_slide_with_the_outer_loop_make_a_segment() -> None:
    found = _by_line(BOXES)
    assert found[26].profitable is False
    assert "slides per iteration of the loop at line 23" in found[26].why
    assert found[30].profitable is False
    assert "`r * steps` slides" in found[30].why


def test_a_size_read_from_a_fixed_place_is_not_a_segment() -> None:
    found = _by_line(BOXES)
    assert found[20].profitable is None
    assert not found[20].why


SHAPES = textwrap.dedent(
    """\
    #include <stdlib.h>
    void setup(int n, double **rows, int iterations, double b, double c,
               double *out, double *p) {
      for (int i = 0; i < n; i++)
        rows[i] = malloc(64 * sizeof(double));
      double s = 0.0;
      for (int it = 0; it < iterations; it++)
        s += b + 3.0 * c;
      out[0] = s;
      for (int i = 0; i < n; i++) {
        rows[i] = malloc(64 * sizeof(double));
        for (int k = 0; k < 64; k++) rows[i][k] = p[k] * 2.0;
      }
      for (int i = 0; i < n; i++)
        out[i] = b * c;
    }
    """
)


def test_an_allocation_loop_is_setup_code() -> None:
    found = _by_line(SHAPES)
    assert found[4].profitable is False
    assert found[4].why.startswith("setup loop:")
    assert found[10].profitable is None  # it allocates and computes a row


def test_a_loop_whose_body_never_uses_its_variable_repeats_itself() -> None:
    found = _by_line(SHAPES)
    assert found[7].profitable is False
    assert found[7].why.startswith("repeat loop: the body never uses `it`:")
    assert not found[14].why.startswith("repeat")  # `out[i]`: distinct data


def test_a_few_large_pieces_keep_their_pragma() -> None:
    found = _by_line(BOXES)
    assert found[34].profitable is None  # 12 pieces (materials): large ones
    assert not found[34].why


ROWS = textwrap.dedent(
    """\
    void grid(long rows, int n, int *idx, double *low, const double *high, double *y) {
      for (long e = 0; e < rows; e++) {
        double u = high[e];
        for (int i = 0; i < n; i++) {
          if (u > low[i]) low[i] = u;
          idx[e * n + i] = (int)low[i];
        }
      }
      for (long e = 0; e < rows; e++)
        for (int i = 0; i < n; i++)
          y[i] = y[i] + low[e];
      for (int m = 0; m < 12; m++)
        for (int i = 0; i < n; i++)
          y[m * n + i] = low[i] * 2.0;
      for (long e = 0; e < rows; e++)
        for (int i = 0; i < n; i++)
          y[e * 2 * n + i] = low[i];
    }
    void blocks(int nb, int nx, int nz, double ***a, double **w, double **c) {
      for (int b = 0; b < nb; b++)
        for (int x = 0; x < nx; x++)
          for (int k = 1; k <= nz; k++)
            a[b][x][k] = w[x][k];
      for (int x = 0; x < nx; x++)
        for (int k = 0; k < nz; k++)
          c[k][x] = w[k][x] * 2.0;
    }
    """
)


def test_a_row_of_a_flattened_array_per_outer_iteration_is_a_segment() -> None:
    found = _by_line(ROWS)
    assert found[4].profitable is False
    assert found[4].why.startswith(
        "segment loop: it walks one row of `idx[e * n + i]` (`n` long) per "
        "iteration of the loop at line 2;"
    )
    assert "loop at line 2" in found[4].why


def test_the_same_row_every_outer_iteration_is_not_a_segment() -> None:
    found = _by_line(ROWS)
    assert found[10].profitable is None  # `y[i]`: the whole data per iteration
    assert found[13].profitable is None  # 12 rows: a few large pieces
    assert found[16].profitable is None  # rows of 2n, half of each walked: no rule


def test_a_row_of_a_many_dimensional_array_per_outer_iteration_is_a_segment() -> None:
    found = _by_line(ROWS)
    assert found[22].profitable is False
    assert "one row of `w[x][k]` (`x` picks it)" in found[22].why
    assert "loop at line 21" in found[22].why  # the innermost loop around it


def test_a_column_walk_is_not_a_row() -> None:
    found = _by_line(ROWS)
    assert found[25].profitable is None  # `c[k][x]`: the loop walks a column


ITEMS = textwrap.dedent(
    """\
    typedef struct { double ***array; } block;
    typedef struct { int n; } listed;
    extern block *blocks;
    extern listed *order;
    extern double **grids;
    extern int nb, xs, ys;
    void items(int var, int steps, double *restrict out) {
      double work[xs + 2][ys + 2];
      for (int in = 0; in < nb; in++) {
        block *bp = &blocks[order[in].n];
        for (int i = 1; i <= xs; i++)
          for (int j = 1; j <= ys; j++)
            work[i][j] = bp->array[var][i - 1][j] * 0.5;
      }
      for (int t = 0; t < steps; t++) {
        double *u = &grids[t % 2][0];
        for (int i = 0; i < xs; i++)
          out[i] = u[i] * 0.5;
      }
      for (int m = 0; m < 3; m++) {
        block *bp = &blocks[m];
        for (int i = 1; i <= xs; i++)
          out[i] = bp->array[var][i][0] * 0.5;
      }
      for (int in = 0; in < nb; in++) {
        block *bp = &blocks[order[in].n];
        for (int i = 1; i <= xs; i++)
          out[i] = bp->array[var][0][0] * out[i];
      }
    }
    """
)


def test_a_loop_over_one_item_the_outer_loop_picks_by_address_is_no_level() -> None:
    found = _by_line(ITEMS)
    # `bp = &blocks[order[in].n]`: each outer iteration owns one block; the loop
    # over the blocks is the level to share out, not the cells of one block.
    assert found[11].profitable is False
    assert found[11].why.startswith("item loop")
    assert "line 9" in found[11].why


def test_a_buffer_swap_a_few_items_or_an_item_it_does_not_walk_keep_their_pragma() -> (
    None
):
    found = _by_line(ITEMS)
    assert found[17].profitable is None  # `grids[t % 2]`: the same two buffers
    assert found[22].profitable is None  # three known items: large pieces
    assert found[27].profitable is None  # walks `out`, reads one cell of the item
