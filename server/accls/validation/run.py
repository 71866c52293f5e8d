"""Opt-in dynamic check: build, run and compare the original and annotated programs.

Builds the file serially and with the suggested OpenMP pragmas, runs both on the
user's inputs in fresh temporary directories under limits, and compares stdout
and the files each run leaves behind, numbers within a relative tolerance.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import is_cpp
from accls.frontend.fortran_form import is_fortran
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.validation.isolation import reachable_temp_dir
from accls.validation.outputs import RunOutput, compare_outputs, compare_text
from accls.validation.session import RunRecord, RunSession, short_of_resources
from accls.validation.verify_settings import (
    VerifyInputError,
    VerifySettings,
    check_inputs,
)

__all__ = [
    "RunRecord",
    "VerifyInputError",
    "VerifyReport",
    "VerifySettings",
    "compare_text",
    "render_report",
    "verify",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """What verify ran and found; `equivalent` is None when it cannot decide."""

    equivalent: bool | None
    runs: tuple[RunRecord, ...]
    commands: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...]
    pragmas_inserted: int


def _compare_parallel(
    session: RunSession, exe: Path, reference: RunOutput
) -> bool | None:
    """Run the annotated program at every thread count.

    True if all match, False if one differs, None if some could not finish
    within the limits and none differs.
    """
    verdict: bool | None = True
    for threads in session.settings.threads:
        output = session.execute(exe, f"openmp-{threads}", threads)
        last = session.runs[-1]
        short = short_of_resources(last)
        if short is not None:
            session.judge(f"UNDECIDED: {short}")
            if verdict is True:
                verdict = None
            continue
        diff = (
            f"killed by {last.signal}"
            if last.signal
            else compare_outputs(reference, output, session.settings.tolerance)
        )
        session.judge("match" if diff is None else f"MISMATCH: {diff}")
        if diff is not None:
            verdict = False
    if verdict is None:
        session.notes.append(
            "some parallel runs could not finish within the limits; undecided"
        )
    return verdict


_CXX_DRIVERS = {"gcc": "g++", "cc": "c++", "clang": "clang++", "icx": "icpx"}


def cxx_compiler(cc: str) -> str:
    """The C++ driver of a C compiler (`gcc` -> `g++`): a C++ program links with it."""
    folder, base = os.path.split(cc)
    for c_name, cxx_name in _CXX_DRIVERS.items():
        if base == c_name or base.startswith(c_name + "-"):
            return os.path.join(folder, cxx_name + base[len(c_name) :])
    return cc


def _decide(session: RunSession, path: str, annotated: str) -> bool | None:
    """Build both programs, run them, and compare; None when undecidable."""
    s = session.settings
    cpp = is_cpp(path)
    fortran = is_fortran(path)
    # gcc compiles Fortran but does not link its runtime; gfortran does both.
    if fortran and s.cc in ("gcc", "cc"):
        name = "gfortran"
    else:
        name = cxx_compiler(s.cc) if cpp else s.cc
    cc = shutil.which(name)
    if cc is None:
        session.notes.append(f"compiler {name!r} not found; nothing was run")
        return None
    std = [] if fortran else ["-std=gnu++17" if cpp else "-std=gnu11"]
    includes = [f"-I{d}" for d in s.include_dirs]
    path = os.path.abspath(path)  # a name starting with "-" is not an option
    serial, parallel = session.root / "serial", session.root / "openmp"
    if not session.build(
        [cc, "-O1", *std, *includes, path, *s.cflags, "-o", str(serial), "-lm"],
        "the original program",
    ):
        return None
    copy = session.root / "annotated" / os.path.basename(path)
    copy.parent.mkdir()
    copy.write_text(annotated, encoding="utf-8", errors="surrogateescape", newline="")
    # -iquote keeps `#include "local.h"` working from the annotated copy.
    quote = ["-I" if fortran else "-iquote", os.path.dirname(path)]
    flags = ["-O1", *std, "-fopenmp", *quote, *includes]
    if not session.build(
        [cc, *flags, str(copy), *s.cflags, "-o", str(parallel), "-lm"],
        "the annotated program",
    ):
        return False
    reference = session.execute(serial, "serial-1", None)
    failed = session.failure(reference)
    if failed is not None:
        session.judge(f"UNUSABLE: {failed}")
        session.notes.append(f"the original program failed ({failed}); undecided")
        return None
    session.judge("reference")
    again = session.execute(serial, "serial-2", None)
    diff = session.failure(again) or compare_outputs(reference, again, s.tolerance)
    if diff is not None:
        session.judge(f"UNSTABLE: {diff}")
        session.notes.append("the original's output varies between runs; undecided")
        return None
    session.judge("match (original is deterministic)")
    return _compare_parallel(session, parallel, reference)


@contextlib.contextmanager
def _terminated_on_sigterm() -> Iterator[None]:
    """Turn SIGTERM into SystemExit, so the run is killed and the scratch removed.

    (Ctrl-C raises KeyboardInterrupt, which unwinds the same way.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def verify(path: str, settings: VerifySettings) -> VerifyReport:
    """Build, run and compare the original and OpenMP-annotated `path`."""
    text = check_inputs(path, settings)
    analysis = analyze_text(
        text, path, settings.include_dirs, AnalysisOptions(dialect="omp")
    )
    suggestions = suggest_file(
        analysis, SuggestOptions(dialect=Dialect.OPENMP, target=Target.CPU)
    )
    inserted = sum(
        1 for s in suggestions if s.pragma is not None and s.existing is None
    )
    with (
        _terminated_on_sigterm(),
        tempfile.TemporaryDirectory(
            prefix=f"accls-verify-{os.getpid()}-", dir=reachable_temp_dir()
        ) as scratch,
    ):
        session = RunSession(settings, Path(scratch))
        if inserted == 0:
            session.notes.append("no pragmas inserted: only -fopenmp differs")
        equivalent = _decide(session, path, annotate_text(text, suggestions))
        session.notes.append(f"scratch directory {scratch} (removed afterwards)")
    return VerifyReport(
        equivalent=equivalent,
        runs=tuple(session.runs),
        commands=tuple(session.commands),
        notes=tuple(session.notes),
        pragmas_inserted=inserted,
    )


def _describe(run: RunRecord) -> str:
    ended = (
        f"stopped by {run.limit}"
        if run.limit
        else (f"killed by {run.signal}" if run.signal else f"exit {run.exit_code}")
    )
    where = "serial" if run.threads is None else f"OMP_NUM_THREADS={run.threads}"
    line = (
        f"run {run.label} ({where}): {ended}, {run.wall_s:.2f} s wall, "
        f"{run.cpu_s:.2f} s CPU, {len(run.files)} file(s): {run.result}"
    )
    if run.stderr_tail and run.result not in ("reference", "match"):
        line += f" [stderr: {run.stderr_tail.splitlines()[-1][:120]}]"
    return line


def render_report(report: VerifyReport) -> str:
    """The report as text: verdict, notes, then one line per command and run."""
    verdict = {True: "EQUIVALENT", False: "NOT EQUIVALENT", None: "UNDECIDED"}
    lines = [
        f"verify: {verdict[report.equivalent]} "
        f"({report.pragmas_inserted} pragma(s) inserted)"
    ]
    lines += [f"note: {n}" for n in report.notes]
    lines += [f"$ {shlex.join(c)}" for c in report.commands]
    lines += [_describe(r) for r in report.runs]
    return "\n".join(lines) + "\n"
