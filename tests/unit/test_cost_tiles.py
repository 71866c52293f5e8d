"""Tile loops: the loop inside a tile walks one tile, too little for a region."""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import accls.cli.commands
import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.analysis.cost import Estimate, estimate_loop

Need = Callable[[str], str]

# A blocked sweep: the tile loop carries `carry`, the loop inside a tile is parallel.
SWEEP = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    #define MIN(x, y) ((x) < (y) ? (x) : (y))
    int main(int argc, char **argv) {
      int n = argc > 1 ? atoi(argv[1]) : 100000;
      int tile = argc > 2 ? atoi(argv[2]) : 64;
      double *x = malloc(sizeof(double) * n);
      double *y = malloc(sizeof(double) * n);
      int i, bt;
      for (i = 0; i < n; i++) x[i] = (i % 13) * 0.5;
      double carry = 0.0;
      for (bt = 0; bt < n; bt += tile) {
        for (i = bt; i < MIN(n, bt + tile); i++)
          y[i] = 0.5 * x[i] + carry;
        carry = 0.25 * y[MIN(n, bt + tile) - 1];
      }
      printf("%.9f %.9f\\n", carry, y[n / 2]);
      free(x);
      free(y);
      return 0;
    }
    """
)

NESTS = textwrap.dedent(
    """\
    #define MIN(x, y) ((x) < (y) ? (x) : (y))
    #define TILES 4
    void f(int n, int tile, double *a, const double *b, int w) {
      for (int it = 0; it < n; it += tile)
        for (int jt = 0; jt < n; jt += tile)
          for (int i = it; i < MIN(n, it + tile); i++)
            for (int j = jt; j < MIN(n, jt + tile); j++)
              a[i * n + j] = 2.0 * b[j * n + i];
      for (int it = 0; it < n; it += tile)
        for (int i = it; i < MIN(n, i + tile); i++)
          a[i] = b[i];
      for (int t = 0; t < TILES; t++)
        for (int i = t * w; i < MIN(n, t * w + w); i++)
          a[i] = b[i] * 3.0;
    }
    """
)


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, offload=False)
        for loop in analysis.source.loops()
    }


def test_the_loops_inside_a_tile_are_tile_loops() -> None:
    found = _by_line(NESTS)
    for line, outer in ((6, 4), (7, 5)):
        assert found[line].profitable is False
        assert found[line].why.startswith("tile loop: it walks one tile of at most")
        assert f"line {outer}" in found[line].why
    assert "`tile`" in found[6].why
    assert not found[4].why.startswith("tile loop")  # the tile loops themselves


def test_a_limit_that_moves_with_the_loop_itself_is_no_tile() -> None:
    found = _by_line(NESTS)
    assert not found[10].why.startswith("tile loop")  # `MIN(n, i + tile)`


def test_a_few_large_tiles_keep_their_pragma() -> None:
    found = _by_line(NESTS)
    assert not found[13].why  # four tiles of `w`: large pieces


def _annotate(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    src = tmp_path / "sweep.c"
    src.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / f"sweep{len(extra)}.omp.c"
    argv = ["annotate", "--model", "openmp", "--target", "cpu", *extra, str(src)]
    assert accls.cli.commands.main([*argv, "-o", str(out)]) == 0
    capsys.readouterr()
    return out.read_text(encoding="utf-8")


def _run(exe: Path, threads: int) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=60, env=env, check=True
    )
    return proc.stdout


def test_annotate_leaves_the_loop_inside_a_tile_serial(
    need: Need, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gcc = need("gcc")
    chosen = _annotate(tmp_path, capsys, "--no-hoist")
    every = _annotate(tmp_path, capsys, "--no-hoist", "--all")
    inner = "for (i = bt; i < MIN(n, bt + tile); i++)"
    lines = chosen.splitlines()
    above = lines[next(k for k, ln in enumerate(lines) if inner in ln) - 1]
    assert "#pragma omp" not in above
    assert chosen.count("#pragma omp parallel for") == 1  # the fill of `x`
    assert every.count("#pragma omp parallel for") == 2  # --all: the tile's too
    (tmp_path / "serial.c").write_text(SWEEP, encoding="utf-8")
    subprocess.run(
        [gcc, "-O1", str(tmp_path / "serial.c"), "-o", str(tmp_path / "s")], check=True
    )
    expected = _run(tmp_path / "s", 1)
    for name, text in (("chosen", chosen), ("every", every)):
        (tmp_path / f"{name}.c").write_text(text, encoding="utf-8")
        exe = tmp_path / name
        subprocess.run(
            [gcc, "-O1", "-fopenmp", str(tmp_path / f"{name}.c"), "-o", str(exe)],
            check=True,
        )
        for threads in (1, 4):
            assert _run(exe, threads) == expected
