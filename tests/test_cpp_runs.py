"""C++ fixtures: their markers hold, and annotated programs print what serial ones do.

Each file of tests/fixtures/cpp is built with g++ and run serially; `accls
annotate` then adds pragmas for each model and target, and the annotated
program, built at -O0 with -fopenmp or -fopenacc, must print the same (numbers
to a relative 1e-9: a parallel reduction sums in another order). The markers
(`/* accls: refuse */`, `/* accls: parallel */` before a `for`) are checked
against `accls suggest --format json`: a refused loop gets no pragma in any
model; a parallel one gets `omp parallel for` on the CPU (a container's elements
cannot be named in an offload data clause, so the GPU targets may refuse it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text
from support.cli import ROOT, run_accls

FIXTURES = ROOT / "tests" / "fixtures" / "cpp"
NAMES = sorted(p.name for p in FIXTURES.glob("*.cpp"))
TOLERANCE = 1e-9
VARIANTS = {
    "openmp-cpu": ("openmp", "cpu", "-fopenmp", (1, 3, 4)),
    "openmp-gpu-on-host": ("openmp", "gpu", "-fopenmp", (4,)),
    "openacc-gpu-on-host": ("openacc", "gpu", "-fopenacc", (1,)),
}
_MARKER = re.compile(r"/\*\s*accls:\s*(refuse|parallel)\s*\*/")


def _gxx() -> str:
    found = shutil.which("g++")
    if found is None:
        pytest.skip("g++ is not installed")
    return found


def _build(src: Path, exe: Path, *flags: str) -> None:
    cmd = [_gxx(), "-std=c++17", *flags, str(src), "-o", str(exe), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr}"


def _execute(exe: Path, threads: int | None = None) -> str:
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
        env["OMP_WAIT_POLICY"] = "passive"
    proc = subprocess.run(
        [str(exe)], capture_output=True, text=True, timeout=30, env=env, check=False
    )
    assert proc.returncode == 0, f"{exe.name} exited {proc.returncode}:\n{proc.stderr}"
    return proc.stdout


def markers(text: str) -> dict[int, str]:
    """1-based line of the `for` each marker applies to -> `refuse` or `parallel`."""
    out: dict[int, str] = {}
    pending: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        found = _MARKER.search(line)
        if found is not None:
            pending = found.group(1)
            continue
        if pending is not None and re.search(r"\bfor\s*\(", line):
            out[number] = pending
            pending = None
    return out


def _suggest(src: Path, model: str, target: str) -> list[dict[str, object]]:
    proc = run_accls(
        "suggest", "--model", model, "--target", target, "--format", "json", str(src)
    )
    assert proc.returncode == 0, proc.stderr
    loops = json.loads(proc.stdout)
    assert isinstance(loops, list)
    return loops


@pytest.mark.parametrize("name", NAMES)
def test_fixture_builds_cleanly(name: str, tmp_path: Path) -> None:
    src = FIXTURES / name
    for flag in ("", "-fopenmp", "-fopenacc"):
        exe = tmp_path / f"{src.stem}{flag}"
        _build(
            src, exe, "-O1", "-Wall", "-Wextra", "-Werror", *([flag] if flag else [])
        )


def _check_markers(name: str, variant: str) -> None:
    model, target, _, _ = VARIANTS[variant]
    src = FIXTURES / name
    marked = markers(src.read_text(encoding="utf-8"))
    assert marked, f"{name} has no marker"
    loops = {int(str(x["line"])): x for x in _suggest(src, model, target)}
    for line, verdict in marked.items():
        loop = loops.get(line)
        assert loop is not None, f"{name}:{line}: no loop reported"
        if verdict == "refuse":
            assert loop["pragma"] is None, f"{name}:{line}: {loop['pragma']}"
            assert loop["parallelizable"] is False
        elif variant == "openmp-cpu":
            pragma = str(loop["pragma"])
            assert pragma.startswith("#pragma omp parallel for"), (
                f"{name}:{line}: {loop['reasons']}"
            )
            assert loop["parallelizable"] is True


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_markers_and_annotated_run(name: str, variant: str, tmp_path: Path) -> None:
    _check_markers(name, variant)
    model, target, flag, threads = VARIANTS[variant]
    src = FIXTURES / name
    serial = tmp_path / "serial"
    _build(src, serial, "-O1")
    expected = _execute(serial)
    annotated = tmp_path / f"{src.stem}.{model}.{target}.cpp"
    proc = run_accls(
        "annotate", "--all", "--model", model, "--target", target, str(src),
        "-o", str(annotated),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    text = annotated.read_text(encoding="utf-8")
    exe = tmp_path / "parallel"
    _build(annotated, exe, "-O0", flag)
    for count in threads:
        output = _execute(exe, count)
        problem = compare_text(expected, output, TOLERANCE)
        assert problem is None, f"{variant}, {count} threads: {problem}\n{text}"
