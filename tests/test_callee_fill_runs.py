"""Arrays a callee fills, made `private`: the annotated program prints the same.

Every loop of `callee_fills/run.c` must get `private(tmp)`, and the result,
built with -fopenmp (1, 2 and 4 threads) and with -fopenacc (on the host, the
callees marked `acc routine seq`), must print what the serial one does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).parent / "fixtures" / "c" / "callee_fills" / "run.c"
FILLED_LOOPS = 5  # whole, part, nested, counted, rows


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
    build_program(gcc, FIXTURE, serial)
    expected = run_program(serial)
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
    build_program(gcc, out, exe, flag)
    for count in threads:
        problem = compare_text(expected, run_program(exe, count), 1e-9)
        assert problem is None, f"{model}, {count} threads: {problem}\n{text}"
