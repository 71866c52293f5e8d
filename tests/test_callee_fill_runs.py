"""Arrays a callee fills, made `private`: the annotated program prints the same.

Every loop of `callee_fills/run.c` must get `private(tmp)`, and the result,
built with -fopenmp (1, 2 and 4 threads) and with -fopenacc (on the host, the
callees marked `acc routine seq`), must print what the serial one does.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text
from support.cli import run_accls

FIXTURE = Path(__file__).parent / "fixtures" / "c" / "callee_fills" / "run.c"
FILLED_LOOPS = 5  # whole, part, nested, counted, rows


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


@pytest.mark.parametrize(
    ("model", "flag", "threads"),
    [("openmp", "-fopenmp", (1, 2, 4)), ("openacc", "-fopenacc", (1,))],
)
def test_filled_arrays_run_in_parallel(
    need: Callable[[str], str],
    tmp_path: Path,
    model: str,
    flag: str,
    threads: tuple[int, ...],
) -> None:
    gcc = need("gcc")
    serial = tmp_path / "serial"
    _build(gcc, FIXTURE, serial)
    expected = _run(serial)
    out = tmp_path / "annotated.c"
    proc = run_accls(
        "annotate", "--all", "--model", model, str(FIXTURE), "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    # OpenACC may add a level (`gang`) before the clause.
    found = re.findall(r"#pragma (?:omp parallel for|acc parallel loop)\b.*", text)
    assert sum("private(tmp)" in f for f in found) == FILLED_LOOPS, text
    exe = tmp_path / "annotated"
    _build(gcc, out, exe, flag)
    for count in threads:
        problem = compare_text(expected, _run(exe, count), 1e-9)
        assert problem is None, f"{model}, {count} threads: {problem}\n{text}"
