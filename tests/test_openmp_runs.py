"""End-to-end safety: annotated fixtures must print what the serial program prints.

Each fixture is built and run serially; then `accls annotate` adds pragmas and the
result is built with the matching compiler flag and run again. A race, a missing
reduction, private or lastprivate clause, or a wrongly parallelised carried loop
shows up as different output. Floating-point numbers may differ by a relative
1e-9, because a parallel reduction sums in another order; integers must match.

The reference is built with -O1, the annotated program with -O0: at -O1 gcc
keeps a wrongly shared scalar in a register and so hides the race, at -O0 every
access goes to memory and the race shows up far more often. Runs remain a
sample, so the static checks in test_fixture_compile.py complement them.

Without offloading compilers gcc runs `omp target` and OpenACC regions on the
host, which still catches wrong data-sharing (a scalar left firstprivate, a
reduction without its clause) though not missing data movement.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from accls.validation.outputs import compare_text

Need = Callable[[str], str]
Suggest = Callable[[Path, str, str], subprocess.CompletedProcess[str]]
Annotate = Callable[[Path, str, str], tuple[subprocess.CompletedProcess[str], Path]]

RUN_TIMEOUT_S = 30.0
TOLERANCE = 1e-9
"""Relative tolerance for numbers: a parallel reduction sums in another order."""
BUILD_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class Variant:
    """One way of annotating, building and running a fixture."""

    model: str
    target: str
    flag: str
    threads: tuple[int, ...]


VARIANTS = {
    "openmp-cpu": Variant("openmp", "cpu", "-fopenmp", (1, 3, 4)),
    "openmp-gpu-on-host": Variant("openmp", "gpu", "-fopenmp", (4,)),
    "openacc-gpu-on-host": Variant("openacc", "gpu", "-fopenacc", (1,)),
}


def test_the_comparison_tolerates_reordered_sums() -> None:
    same = "s 1.000000000000e+00\n", "s 1.000000000001e+00\n"
    assert compare_text(*same, TOLERANCE) is None
    assert compare_text("n 12 x 0.0\n", "n 12 x 1e-14\n", TOLERANCE) is None
    assert compare_text("nan inf\n", "NaN inf\n", TOLERANCE) is None


def test_the_comparison_catches_real_differences() -> None:
    # Not parametrized: `selected_params` reads this module's parameters as runs.
    for expected, actual, why in (
        ("n 12\n", "n 13\n", "integer differs: 12 vs 13"),
        ("s 1.0e+00\n", "s 1.0001e+00\n", "number differs beyond 1e-09"),
        ("a 1\n", "b 1\n", "text differs: 'a ' vs 'b '"),
        ("a 1\n", "a 1\nb 2\n", "text differs"),
        ("3 2.5\n", "3.0 2.5\n", "integer differs: 3 vs 3.0"),
    ):
        problem = compare_text(expected, actual, TOLERANCE)
        assert problem is not None, (expected, actual)
        assert problem.startswith(f"line 1: {why}"), problem


def _run(
    cmd: list[str], *, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def _build(gcc: str, src: Path, exe: Path, *flags: str) -> None:
    # The fixtures' own headers (`header_functions.h`) stay next to the originals.
    include = f"-I{Path(__file__).parent / 'fixtures' / 'c'}"
    cmd = [gcc, "-std=gnu11", include, *flags, str(src), "-o", str(exe), "-lm"]
    proc = _run(cmd, timeout=BUILD_TIMEOUT_S)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr}"


def _execute(exe: Path, threads: int | None = None) -> str:
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
        # Spinning threads starve each other when the host has fewer cores.
        env["OMP_WAIT_POLICY"] = "passive"
    proc = _run([str(exe)], timeout=RUN_TIMEOUT_S, env=env)
    assert proc.returncode == 0, f"{exe.name} exited {proc.returncode}:\n{proc.stderr}"
    return proc.stdout


def _serial_output(gcc: str, src: Path, workdir: Path) -> str:
    exe = workdir / f"{src.stem}.serial"
    _build(gcc, src, exe, "-O1")
    return _execute(exe)


def _suggested_pragmas(suggest: Suggest, src: Path, variant: Variant) -> list[str]:
    proc = suggest(src, variant.model, variant.target)
    assert proc.returncode == 0, f"accls suggest failed:\n{proc.stderr}"
    loops = json.loads(proc.stdout)
    assert isinstance(loops, list), "suggest --format json must print a JSON array"
    return [str(loop["pragma"]) for loop in loops if loop.get("pragma") is not None]


def _check_variant(
    gcc: str,
    src: Path,
    workdir: Path,
    variant: Variant,
    serial: Future[str],
    suggest: Suggest,
    annotate: Annotate,
) -> None:
    pragmas = _suggested_pragmas(suggest, src, variant)
    proc, annotated = annotate(src, variant.model, variant.target)
    assert proc.returncode == 0, f"accls annotate failed:\n{proc.stderr}"
    assert annotated.is_file(), "accls annotate -o wrote no file"
    text = annotated.read_text(encoding="utf-8")
    original = src.read_text(encoding="utf-8")
    if pragmas:
        assert text != original, f"suggested {pragmas} but annotate changed nothing"
        dialect = "omp" if variant.model == "openmp" else "acc"
        assert text.count(f"#pragma {dialect}") > original.count(
            f"#pragma {dialect}"
        ), f"suggested {pragmas} but annotate added no #pragma {dialect}"
    exe = workdir / f"{src.stem}.{variant.model}.{variant.target}"
    _build(gcc, annotated, exe, "-O0", variant.flag)
    expected = serial.result()
    for threads in variant.threads:
        output = _execute(exe, threads)
        problem = compare_text(expected, output, TOLERANCE)
        assert problem is None, (
            f"{variant.model}/{variant.target} with {threads} threads: {problem}\n"
            f"--- serial\n{expected}--- annotated\n{output}"
        )


@pytest.fixture(scope="module")
def checks(
    need: Need,
    pool: ThreadPoolExecutor,
    selected_params: list[dict[str, object]],
    fixtures_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    accls_suggest: Suggest,
    accls_annotate: Annotate,
) -> dict[tuple[str, str], Future[None]]:
    """Start every selected (fixture, variant) check on the pool; tests await them."""
    gcc = need("gcc")
    workdir = tmp_path_factory.mktemp("openmp_runs")
    serial: dict[str, Future[str]] = {}
    started: dict[tuple[str, str], Future[None]] = {}
    for params in selected_params:
        name, key = str(params["c_fixture"]), str(params["variant"])
        src = fixtures_dir / name
        if name not in serial:
            serial[name] = pool.submit(_serial_output, gcc, src, workdir)
        if (name, key) not in started:
            started[name, key] = pool.submit(
                _check_variant,
                gcc,
                src,
                workdir,
                VARIANTS[key],
                serial[name],
                accls_suggest,
                accls_annotate,
            )
    return started


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_annotated_run_matches_serial(
    c_fixture: str, variant: str, checks: dict[tuple[str, str], Future[None]]
) -> None:
    checks[c_fixture, variant].result()
