"""Project mode of benchmarks/harm_blind.py: a batch of multi-file programs.

Each folder of the batch (tests/fixtures/harm_blind2) is one program: a few
`.c` files and headers. Every `.c` file is annotated with `accls annotate --all
--project FOLDER` (so the callees its other files define are summarised), the
whole program is built from the annotated files and compared with the serial
build at 1, 2 and 4 threads, then built with clang -fsanitize=thread and run
under Archer; the markers of all its files are scored.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from collections.abc import Callable
from pathlib import Path

from differential.oracle import (
    RUN_TIMEOUT_S,
    THREADS,
    TSAN_THREADS,
    Tools,
    _differs,
    _env,
    _run,
    race_report,
)
from support.harm_markers import markers, parallelised_rows

__all__ = ["project_dirs", "run_failure", "score_project"]


def project_dirs(batch: Path, only: str) -> list[Path]:
    """The batch's program folders (those holding a `.c` file) matching `only`."""
    return sorted(d for d in batch.glob(only) if d.is_dir() and any(d.glob("*.c")))


def _build(cc: str, folder: Path, exe: Path, *flags: str) -> str | None:
    """Compile every `.c` file of `folder` into `exe`; None, else the first error."""
    sources = sorted(str(p) for p in folder.glob("*.c"))
    cmd = [cc, "-std=gnu11", *flags, "-I", str(folder), *sources]
    proc = _run([*cmd, "-o", str(exe), "-lm"], 120)
    if proc is not None and proc.returncode == 0:
        return None
    lines = proc.stderr.splitlines() if proc is not None else ["timeout"]
    return next((x for x in lines if "error" in x), lines[0] if lines else "failed")


def _annotate(src: Path, out: Path, root: Path, cache: Path) -> str | None:
    from accls.cli import main

    argv = ["annotate", "--all", "--model", "openmp", "--project", str(root)]
    argv += ["--index-cache", str(cache), str(src), "-o", str(out)]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except Exception as exc:  # a crash is a finding
            return f"{type(exc).__name__}: {exc}"
    return None if code == 0 else err.getvalue().strip() or f"exit {code}"


def score_project(
    folder: Path, work: Path, tools: Tools, tsan: bool
) -> tuple[int, int, tuple[str, ...], str] | str:
    """(experts, recovered, traps hit, failure) for one program; a string if dropped."""
    root, omp = work / "src", work / "omp"
    shutil.copytree(folder, root)
    if _build(tools.gcc, root, work / "serial", "-O0") is not None:
        return "serial build fails"
    ref = _run([str(work / "serial")], RUN_TIMEOUT_S)
    if ref is None or ref.returncode != 0:
        return "serial run fails"
    shutil.copytree(root, omp)
    experts = recovered = 0
    hit: list[str] = []
    for src in sorted(root.glob("*.c")):
        failed = _annotate(src, omp / src.name, root, work / "cache")
        if failed is not None:
            return f"annotate {src.name} fails: {failed}"
        text = (omp / src.name).read_text(encoding="utf-8")
        shared = parallelised_rows(text)
        for m in markers(text):
            if m.kind == "expert":
                experts += 1
                recovered += m.row in shared
            elif m.row in shared:
                hit.append(f"{src.name} line {m.row + 1}: {m.reason}")
    return (
        experts,
        recovered,
        tuple(hit),
        run_failure(_build, omp, work, tools, ref.stdout, tsan),
    )


Build = Callable[..., "str | None"]


def run_failure(
    build: Build, omp: Path, work: Path, tools: Tools, expected: str, tsan: bool
) -> str:
    """Why the annotated program `omp` fails (compile, output, race); "" if none.

    `build(cc, omp, exe, *flags)` compiles it (one file or a folder); the program
    must print `expected` at every thread count and run clean under Archer.
    """
    error = build(tools.gcc, omp, work / "omp.exe", "-O0", "-fopenmp")
    if error is not None:
        return f"compile: {error}"
    for threads in THREADS:
        diff = _differs(work / "omp.exe", expected, _env(threads))
        if diff is not None:
            return f"output at {threads} threads: {diff}"
    if not tsan or tools.clang is None or tools.archer is None:
        return ""
    flags = ("-O0", "-g", "-fopenmp", "-fsanitize=thread")
    error = build(tools.clang, omp, work / "tsan", *flags)
    if error is not None:
        return f"clang compile: {error}"
    for threads in TSAN_THREADS:
        race = race_report(tools, work / "tsan", threads)
        if race is not None:
            return f"race at {threads} threads: {race}"
    return ""
