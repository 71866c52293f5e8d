"""The differential oracle: does every pragma accls inserts keep the program's output?

`check(text, workdir)` builds the program serially (gcc -O1) as the reference,
annotates it with `accls annotate` for OpenMP and OpenACC, runs the OpenMP build at
1, 2 and 4 threads, the OpenMP `--target gpu` build at 4 threads and the OpenACC
build (gcc -fopenacc) on the host, and runs the OpenMP build under ThreadSanitizer
with clang and Archer at 2 and 4 threads. The
annotated builds use -O0 so a wrongly shared scalar lives in memory, where a race
changes the result. A program that does not build or run serially is dropped.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from accls.validation.outputs import compare_text

__all__ = [
    "Annotator",
    "Outcome",
    "Tools",
    "annotate",
    "check",
    "find_tools",
]

RUN_TIMEOUT_S = 20.0
TOLERANCE = 1e-9
"""Relative tolerance for numbers: a parallel sum adds in another order."""
BUILD_TIMEOUT_S = 60.0
THREADS = (1, 2, 4)
TSAN_THREADS = (2, 4)

_FOR = re.compile(r"\bfor\s*\(")

# annotate(source, output, variant) -> None on success, else why it failed; the
# variant is a model, maybe a target, maybe `+rewrite` (--rewrite-inductions):
# openmp, openmp-gpu, openacc, openmp+rewrite.
Annotator = Callable[[Path, Path, str], str | None]


@dataclass(frozen=True, slots=True)
class Tools:
    """The compilers and the Archer runtime; clang and archer are optional."""

    gcc: str
    clang: str | None
    archer: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What the oracle found for one program."""

    status: str  # pass, dropped, diff, race, error
    reason: str = ""  # why dropped, or which variant differed and how
    loops: int = 0
    parallel: int = 0  # OpenMP pragmas accls inserted


def find_tools() -> Tools | None:
    """Locate gcc (required), clang and libarcher.so (for the race runs)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    clang = shutil.which("clang")
    archer = None
    if clang is not None:
        real = Path(clang).resolve()
        for lib in (real.parent.parent / "lib", Path("/usr/lib")):
            hits = sorted(lib.glob("**/libarcher.so")) if lib.is_dir() else []
            if hits:
                archer = str(hits[0])
                break
    return Tools(gcc, clang, archer)


def annotate(src: Path, out: Path, variant: str) -> str | None:
    """Run `accls annotate` in this process; None on success, else its stderr."""
    from accls.cli import main

    spec, _, rewrite = variant.partition("+")
    model, _, target = spec.partition("-")
    argv = ["annotate", "--all", "--model", model, str(src), "-o", str(out)]
    argv += ["--target", target] if target else []
    argv += ["--rewrite-inductions"] if rewrite else []
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except Exception as exc:  # a crash is a finding, not a harness failure
            return f"{type(exc).__name__}: {exc}"
    return None if code == 0 else err.getvalue().strip() or f"exit {code}"


def _run(
    cmd: list[str], timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        return None


_CXX_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".c++", ".C"})


def _driver(cc: str, src: Path) -> list[str]:
    """The compiler and standard for `src`: `cc`'s C++ driver for C++ sources."""
    if src.suffix not in _CXX_SUFFIXES:
        return [cc, "-std=gnu11"]
    # gcc -> g++, clang -> clang++, keeping the folder and any version suffix.
    name = Path(cc).name
    cxx = name.replace("clang", "clang++", 1) if "clang" in name else name
    cxx = cxx.replace("gcc", "g++", 1)
    return [str(Path(cc).with_name(cxx)), "-std=gnu++17"]


def _build(cc: str, src: Path, exe: Path, *flags: str) -> str | None:
    """Compile (C, or C++ by the suffix); None on success, else the first error line."""
    proc = _run([*_driver(cc, src), *flags, str(src), "-o", str(exe), "-lm"], 120)
    if proc is not None and proc.returncode == 0:
        return None
    lines = proc.stderr.splitlines() if proc is not None else ["timeout"]
    return next((x for x in lines if "error" in x), lines[0] if lines else "failed")


def _env(threads: int, **extra: str) -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **extra)
    env.pop("OMP_PROC_BIND", None)
    return env


def _differs(exe: Path, expected: str, env: dict[str, str]) -> str | None:
    proc = _run([str(exe)], RUN_TIMEOUT_S, env)
    if proc is None:
        return "timeout"
    if proc.returncode != 0:
        return f"exit {proc.returncode}: {proc.stderr.strip()[:200]}"
    return compare_text(expected, proc.stdout, TOLERANCE)


def race_report(tools: Tools, exe: Path, threads: int) -> str | None:
    """Run a TSan build with Archer; the report's first line when it races."""
    assert tools.archer is not None
    env = _env(
        threads,
        OMP_TOOL_LIBRARIES=tools.archer,
        TSAN_OPTIONS="ignore_noninstrumented_modules=1 exitcode=66",
    )
    proc = _run([str(exe)], RUN_TIMEOUT_S * 3, env)
    if proc is None:
        return "timeout under TSan"
    if "ThreadSanitizer" in proc.stderr or proc.returncode == 66:
        hit = [x for x in proc.stderr.splitlines() if "WARNING: ThreadSanitizer" in x]
        return hit[0].strip() if hit else proc.stderr.strip()[:200]
    return None


def pragmas(text: str, dialect: str) -> int:
    """Parallel pragmas (not `atomic`) in annotated text."""
    lines = (x.strip() for x in text.splitlines())
    return sum(
        1 for x in lines if x.startswith(f"#pragma {dialect} ") and "atomic" not in x
    )


# Further variants: (variant, gcc flag, threads); offload ones run on the host.
_ON_HOST = (
    ("openmp+rewrite", "-fopenmp", 4),
    ("openmp-gpu", "-fopenmp", 4),
    ("openacc", "-fopenacc", 1),
)


def check(
    text: str,
    work: Path,
    tools: Tools,
    *,
    races: bool = True,
    annotator: Annotator | None = None,
) -> Outcome:
    """Run the whole oracle on one program in the empty folder `work`.

    `annotator` replaces `accls annotate` (the oracle's own tests use it).
    """
    how = annotator or annotate
    src = work / "prog.c"
    src.write_text(text, encoding="utf-8")
    loops = len(_FOR.findall(text))
    if _build(tools.gcc, src, work / "serial", "-O1") is not None:
        return Outcome(status="dropped", reason="serial build fails", loops=loops)
    ref = _run([str(work / "serial")], RUN_TIMEOUT_S)
    if ref is None:
        return Outcome(status="dropped", reason="serial run times out", loops=loops)
    if ref.returncode != 0:
        return Outcome(status="dropped", reason="serial run fails", loops=loops)
    found = _check_openmp(src, work, tools, ref.stdout, races, how)
    omp = work / "omp.c"
    parallel = pragmas(omp.read_text(encoding="utf-8"), "omp") if omp.exists() else 0
    for variant, flag, threads in (
        ("openmp-gpu", "-fopenmp", 4),
        ("openacc", "-fopenacc", 1),
    ):
        if found is None:
            found = _check_on_host(
                src, work, tools, ref.stdout, how, variant, flag, threads
            )
    if found is None:
        return Outcome(status="pass", loops=loops, parallel=parallel)
    status, reason = found
    return Outcome(status=status, reason=reason, loops=loops, parallel=parallel)


def _check_openmp(
    src: Path, work: Path, tools: Tools, expected: str, races: bool, how: Annotator
) -> tuple[str, str] | None:
    omp = work / "omp.c"
    failed = how(src, omp, "openmp")
    if failed is not None:
        return "error", f"openmp annotate: {failed}"
    if pragmas(omp.read_text(encoding="utf-8"), "omp") == 0:
        return None
    error = _build(tools.gcc, omp, work / "omp", "-O0", "-fopenmp")
    if error is not None:
        return "error", f"openmp build: {error}"
    for threads in THREADS:
        diff = _differs(work / "omp", expected, _env(threads))
        if diff is not None:
            return "diff", f"openmp {threads} threads: {diff}"
    if not races or tools.clang is None or tools.archer is None:
        return None
    flags = ("-O1", "-g", "-fopenmp", "-fsanitize=thread")
    error = _build(tools.clang, omp, work / "tsan", *flags)
    if error is not None:
        return "error", f"openmp clang build: {error}"
    for threads in TSAN_THREADS:
        race = race_report(tools, work / "tsan", threads)
        if race is not None:
            return "race", f"openmp {threads} threads: {race}"
    return None


def _check_on_host(
    src: Path,
    work: Path,
    tools: Tools,
    expected: str,
    how: Annotator,
    variant: str,
    flag: str,
    threads: int,
) -> tuple[str, str] | None:
    """Another variant, one run. Offload ones run on the host: that catches wrong
    data sharing (a scalar left firstprivate), not missing data movement."""
    out = work / f"{variant}.c"
    failed = how(src, out, variant)
    if failed is not None:
        return "error", f"{variant} annotate: {failed}"
    dialect = "acc" if variant.startswith("openacc") else "omp"
    if pragmas(out.read_text(encoding="utf-8"), dialect) == 0:
        return None
    error = _build(tools.gcc, out, work / variant, "-O0", flag)
    if error is not None:
        return "error", f"{variant} build: {error}"
    diff = _differs(work / variant, expected, _env(threads))
    return None if diff is None else ("diff", f"{variant} {threads} threads: {diff}")
