"""Fortran fixtures: annotated programs print what the serial program prints.

Each program in tests/fixtures/fortran/ is built with gfortran and run serially;
`accls annotate` then adds directives for each model and target, the result is
built with -fopenmp or -fopenacc (at -O0, where a wrongly shared scalar shows)
and run again; the outputs must agree (numbers to a relative 1e-9). The markers
`! accls: parallel` and `! accls: refuse` above a `do` line are checked against
`accls suggest --format json`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text

FIXTURES = Path(__file__).parent / "fixtures" / "fortran"
PROGRAMS = sorted(p.name for p in FIXTURES.glob("*.f90"))
VARIANTS = {
    "openmp-cpu": ("openmp", "cpu", "-fopenmp", (1, 4)),
    "openmp-gpu-on-host": ("openmp", "gpu", "-fopenmp", (4,)),
    "openacc-gpu-on-host": ("openacc", "gpu", "-fopenacc", (1,)),
}
_MARKER = re.compile(r"^\s*!\s*accls:\s*(parallel|refuse)\s*$")
_DIRECTIVE = re.compile(r"^\s*!\$(omp|acc)\s", re.IGNORECASE)

needs_gfortran = pytest.mark.skipif(
    shutil.which("gfortran") is None, reason="gfortran is not installed"
)


def _accls(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        [sys.executable, "-m", "accls", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def _build(source: Path, exe: Path, *flags: str) -> None:
    done = subprocess.run(
        ["gfortran", *flags, str(source), "-o", str(exe)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=exe.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def _run(exe: Path, threads: int) -> str:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    done = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _markers(text: str) -> dict[int, str]:
    """Line of the `do` under each marker -> its verdict."""
    lines = text.split("\n")
    out: dict[int, str] = {}
    for index, line in enumerate(lines):
        match = _MARKER.match(line)
        if match is not None:
            nxt = next(
                i
                for i in range(index + 1, len(lines))
                if lines[i].strip().lower().startswith("do")
            )
            out[nxt + 1] = match.group(1)
    return out


@needs_gfortran
@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("program", PROGRAMS)
def test_annotated_fortran_prints_what_serial_prints(
    program: str, variant: str, tmp_path: Path
) -> None:
    model, target, flag, threads = VARIANTS[variant]
    source = tmp_path / program
    shutil.copy(FIXTURES / program, source)
    serial = tmp_path / "serial"
    _build(source, serial, "-O1")
    expected = _run(serial, 1)
    annotated = tmp_path / ("annotated_" + program)
    done = _accls(
        "annotate",
        "--model",
        model,
        "--target",
        target,
        str(source),
        "-o",
        str(annotated),
    )
    assert done.returncode == 0, done.stderr
    text = annotated.read_text()
    _build(annotated, tmp_path / "parallel", "-O0", flag)
    for count in threads:
        actual = _run(tmp_path / "parallel", count)
        problem = compare_text(expected, actual, 1e-9)
        assert problem is None, f"{program} {variant} x{count}: {problem}\n{text}"


@needs_gfortran
@pytest.mark.parametrize("model", ["openmp", "openacc"])
@pytest.mark.parametrize("program", PROGRAMS)
def test_fortran_markers(program: str, model: str) -> None:
    text = (FIXTURES / program).read_text()
    markers = _markers(text)
    done = _accls(
        "suggest", "--format", "json", "--model", model, str(FIXTURES / program)
    )
    assert done.returncode in (0, 1), done.stderr
    by_line = {obj["line"]: obj for obj in json.loads(done.stdout)}
    for line, verdict in markers.items():
        found = by_line.get(line)
        assert found is not None, f"{program}:{line}: no suggestion"
        pragma = found["pragma"] or ""
        if verdict == "parallel":
            assert found["parallelizable"], (line, found["reasons"])
            assert _DIRECTIVE.match(pragma), (line, pragma)
        else:
            assert not found["parallelizable"], (line, pragma, found["reasons"])
            assert not re.search(r"parallel|\bdo\b|\bloop\b(?! seq)", pragma), pragma


@needs_gfortran
def test_verify_runs_a_fortran_openmp_program() -> None:
    done = _accls("verify", str(FIXTURES / "reductions.f90"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gfortran" in done.stdout + done.stderr
    assert "openmp-4" in done.stdout + done.stderr
