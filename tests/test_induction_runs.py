"""`annotate --rewrite-inductions`: the rewritten, annotated program prints the same.

Every loop of `induction_counters.c` that advances a counter must be rewritten
and parallelised, and the result, built with -fopenmp (1, 2 and 4 threads) and
with -fopenacc (on the host), must print what the serial program prints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text
from support.cli import run_accls
from support.gcc import build_program, run_program

FIXTURE = Path(__file__).parent / "fixtures" / "c" / "induction_counters.c"
REWRITTEN_LOOPS = 4  # pairs, thirds, backwards, strided


@pytest.mark.parametrize(
    ("model", "flag", "threads"),
    [("openmp", "-fopenmp", (1, 2, 4)), ("openacc", "-fopenacc", (1,))],
)
def test_rewritten_program_matches_the_serial_one(
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
    out = tmp_path / f"rewritten.{model}.c"
    proc = run_accls(
        "annotate",
        "--all",
        "--model",
        model,
        "--rewrite-inductions",
        str(FIXTURE),
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("accls: rewrote") == REWRITTEN_LOOPS
    text = out.read_text(encoding="utf-8")
    code = text.split("#include")[1].split("int main")[0]
    assert not any(step in code for step in ("t++", "++u", "v--", "t += 3;"))
    sentinel = "#pragma omp parallel for" if model == "openmp" else "#pragma acc"
    assert text.count(sentinel) >= REWRITTEN_LOOPS
    exe = tmp_path / f"rewritten.{model}"
    build_program(gcc, out, exe, flag)
    for count in threads:
        problem = compare_text(expected, run_program(exe, count), 1e-9)
        assert problem is None, f"{model}, {count} threads: {problem}\n{text}"
