"""Field points-to end to end: a fixture annotated with `--project`, run in parallel.

Here the fixtures whose loops only the whole program can prove distinct are
copied alone into a folder (the file is the whole program), annotated with
`--project` on it, built with `-fopenmp -O0` and run at 2 and 4 threads: the
output must match the serial run, and the loops the field sets prove must have
their pragma. A C file with `main` annotated alone, without a project, is the
whole program too (`LONE`): the same loops, the same runs. C++ fixtures
(`cpp/...`) are built with g++.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
# fixture -> the lines of loops that must get a pragma with the project
PROVED = {
    "c/field_allocations.c": (62,),
    "c/field_tables.c": (80, 143),
    "c/field_out_params.c": (69,),
    "c/field_void_data.c": (80,),
    "cpp/held_members.cpp": (77,),
}
# Of them, the C files that define `main`: proved alone as well.
LONE = ("c/field_allocations.c", "c/field_tables.c", "c/field_void_data.c")
TOLERANCE = 1e-9


def _compiler(name: str) -> list[str]:
    cpp = name.endswith(".cpp")
    found = shutil.which("g++" if cpp else "gcc")
    if found is None:
        pytest.skip("gcc or g++ not found")
    return [found, "-std=c++17" if cpp else "-std=c11"]


def _run(exe: Path, threads: int | None = None) -> str:
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=30, env=env, check=True
    )
    return proc.stdout


@pytest.mark.parametrize(
    ("name", "alone"),
    [(n, False) for n in sorted(PROVED)] + [(n, True) for n in LONE],
)
def test_annotated_with_the_project_matches_serial(
    name: str, alone: bool, tmp_path: Path
) -> None:
    gcc = _compiler(name)
    project = tmp_path / "proj"
    project.mkdir()
    src = project / Path(name).name
    shutil.copy(FIXTURES / name, src)
    serial = tmp_path / "serial"
    subprocess.run([*gcc, "-O1", str(src), "-o", str(serial), "-lm"], check=True)
    expected = _run(serial)
    out = tmp_path / f"annotated_{src.name}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "accls",
            "annotate",
            "--model",
            "openmp",
            *(() if alone else ("--project", str(project))),
            "--index-cache",
            str(tmp_path / "cache"),
            str(src),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    original = src.read_text(encoding="utf-8").splitlines()
    for line in PROVED[name]:
        loop = original[line - 1].strip()
        at = next(i for i, text in enumerate(lines) if text.strip() == loop)
        assert lines[at - 1].strip().startswith("#pragma omp parallel for"), loop
    exe = tmp_path / "annotated"
    subprocess.run(
        [*gcc, "-O0", "-fopenmp", str(out), "-o", str(exe), "-lm"],
        check=True,
    )
    for threads in (2, 4):
        problem = compare_text(expected, _run(exe, threads), TOLERANCE)
        assert problem is None, f"{threads} threads: {problem}"
