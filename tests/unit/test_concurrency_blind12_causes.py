"""Causes found by the twelfth blind batch, one unit each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_TILED = """\
    #define N 256
    #define T 32
    static double a[N][N], b[N][N];
    void transpose(void) {
      #pragma omp parallel for collapse(2)
      for (int ii = 0; ii < N; ii += T)
        for (int jj = 0; jj < N; jj += T)
          for (int i = ii; i < ii + T; i++)
            for (int j = jj; j {op} jj + T && j < N; j++)
              b[j][i] = a[i][j];
    }
"""


def test_a_macro_tile_step_keeps_the_tile_in_its_rows() -> None:
    # `ii` steps by T from 0, so `i < ii + T` stops at N - 1: no overrun
    assert _errors(_TILED.replace("{op}", "<")) == []
    # an inclusive tile edge writes the first column of the next tile
    assert [c for c, _ in _errors(_TILED.replace("{op}", "<="))] == ["ACC101"]
