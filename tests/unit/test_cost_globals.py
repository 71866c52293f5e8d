"""Constant globals fix trip counts for the cost model, as `#define` does."""

from __future__ import annotations

import json
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

KERNELS = textwrap.dedent(
    """\
    static const int NB = 8, NS = NB * 2;
    const int BIG = 4000000;
    void small(double *a, const double *b) {
      for (int i = 0; i < NS; i++)
        a[i] = 2.0 * b[i];
    }
    void large(double *a, const double *b) {
      for (int i = 0; i < BIG; i++)
        a[i] = 2.0 * b[i] + a[i];
    }
    void hidden(double *a, const double *b, int NS) {
      for (int i = 0; i < NS; i++)
        a[i] = 2.0 * b[i];
    }
    """
)


def _by_line(text: str) -> dict[int, Estimate]:
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    return {
        loop.line: estimate_loop(analysis, loop, offload=False)
        for loop in analysis.source.loops()
    }


def test_a_small_const_global_size_is_a_small_loop() -> None:
    found = _by_line(KERNELS)
    assert found[4].units is not None
    assert found[4].iterations == 16
    assert found[4].profitable is False
    assert found[4].why.startswith("small loop")


def test_a_large_const_global_size_pays() -> None:
    found = _by_line(KERNELS)
    assert found[8].iterations == 4000000
    assert found[8].profitable is True


def test_a_parameter_of_the_same_name_hides_the_global() -> None:
    found = _by_line(KERNELS)
    assert found[12].units is None
    assert found[12].profitable is None


PROGRAM = textwrap.dedent(
    """\
    #include <stdio.h>
    #include <stdlib.h>
    static const int LEN = 2000000;
    static const int HEAD = 6;
    int main(void) {
      double *a = malloc(sizeof(double) * LEN);
      double *h = malloc(sizeof(double) * HEAD);
      for (int i = 0; i < HEAD; i++)
        h[i] = 0.5 * i;
      for (int i = 0; i < LEN; i++)
        a[i] = (i % 17) * h[i % HEAD] + 1.0;
      printf("%.6f %.6f\\n", a[LEN / 3], h[HEAD - 1]);
      free(a);
      free(h);
      return 0;
    }
    """
)


def _run(exe: Path, threads: int) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=60, env=env, check=True
    )
    return proc.stdout


def test_annotate_shares_out_the_large_loop_only(
    need: Need, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gcc = need("gcc")
    src = tmp_path / "k.c"
    src.write_text(PROGRAM, encoding="utf-8")
    out = tmp_path / "k.omp.c"
    argv = ["annotate", "--model", "openmp", "--target", "cpu", str(src)]
    assert accls.cli.commands.main([*argv, "-o", str(out)]) == 0
    capsys.readouterr()
    lines = out.read_text(encoding="utf-8").splitlines()
    above = {ln.strip(): lines[k - 1].strip() for k, ln in enumerate(lines) if k > 0}
    assert not above["for (int i = 0; i < HEAD; i++)"].startswith("#pragma omp")
    assert above["for (int i = 0; i < LEN; i++)"].startswith("#pragma omp parallel")
    subprocess.run([gcc, "-O1", str(src), "-o", str(tmp_path / "s")], check=True)
    subprocess.run(
        [gcc, "-O1", "-fopenmp", str(out), "-o", str(tmp_path / "p")], check=True
    )
    expected = _run(tmp_path / "s", 1)
    for threads in (1, 4):
        assert _run(tmp_path / "p", threads) == expected


ENUMS = textwrap.dedent(
    """\
    enum Timer { t0, t1, t2 = 10, t3, nTimers };
    typedef enum { A1 = 3, A2 } Small;
    void f(double *a, const double *b, int t3) {
      for (int i = 0; i < nTimers; i++)
        a[i] = 2.0 * b[i];
      for (int i = 0; i < A2; i++)
        a[i] = 2.0 * b[i];
      for (int i = 0; i < t3; i++)
        a[i] = 2.0 * b[i];
    }
    """
)


def test_enumerators_fix_trip_counts() -> None:
    found = _by_line(ENUMS)
    assert found[4].iterations == 12  # t2 = 10, t3, nTimers
    assert found[4].profitable is False
    assert found[6].iterations == 4
    assert found[8].iterations is None  # the parameter `t3` hides the enumerator


def test_a_headers_enumerator_fixes_a_trip_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "timers.h").write_text(
        "enum TimerHandle { totalTimer, loopTimer, numberOfTimers };\n",
        encoding="utf-8",
    )
    src = tmp_path / "t.c"
    src.write_text(
        '#include "timers.h"\n'
        "void stats(double *restrict a, const double *restrict b) {\n"
        "  for (int i = 0; i < numberOfTimers; i++)\n"
        "    a[i] = b[i] / 3.0;\n"
        "}\n",
        encoding="utf-8",
    )
    argv = ["suggest", "--model", "openmp", "--no-validate", "--format", "json"]
    assert accls.cli.commands.main([*argv, str(src)]) == 0
    out = json.loads(capsys.readouterr().out)
    loops = out if isinstance(out, list) else out["loops"]
    (loop,) = [o for o in loops if o.get("line") == 3]
    assert loop["estimate"]["iterations"] == 2
    assert loop["profitable"] is False
