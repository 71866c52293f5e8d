"""Arrays a callee fills, made `private`: the annotated program prints the same.

Every loop of `callee_fills/run.c` must get `private(tmp)`, and the result,
built with -fopenmp (1, 2 and 4 threads), must print what the serial one does.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from accls.validation.outputs import compare_text
from support.cli import run_accls

FIXTURE = Path(__file__).parent / "fixtures" / "c" / "callee_fills" / "run.c"
FILLED_LOOPS = 3  # whole, part, nested


def _build(gcc: str, src: Path, exe: Path, *flags: str) -> None:
    proc = subprocess.run(
        [gcc, "-std=gnu11", "-O0", *flags, str(src), "-o", str(exe), "-lm"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def _run(exe: Path, threads: int = 1) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "passive"}
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, check=False, timeout=30, env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_filled_arrays_run_in_parallel(
    need: Callable[[str], str], tmp_path: Path
) -> None:
    gcc = need("gcc")
    serial = tmp_path / "serial"
    _build(gcc, FIXTURE, serial)
    expected = _run(serial)
    out = tmp_path / "annotated.c"
    proc = run_accls(
        "annotate", "--all", "--model", "openmp", str(FIXTURE), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert text.count("#pragma omp parallel for private(tmp)") == FILLED_LOOPS, text
    exe = tmp_path / "annotated"
    _build(gcc, out, exe, "-fopenmp")
    for count in (1, 2, 4):
        problem = compare_text(expected, _run(exe, count), 1e-9)
        assert problem is None, f"{count} threads: {problem}\n{text}"
