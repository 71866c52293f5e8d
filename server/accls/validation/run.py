"""Opt-in dynamic check: build, run and compare the original and annotated programs.

Builds the file serially and with the suggested OpenMP pragmas, runs both on the
user's inputs in fresh temporary directories under limits, and compares stdout
and the files each run leaves behind, numbers within a relative tolerance.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shlex
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from accls.analysis import AnalysisOptions, analyze_text
from accls.inputs import InputError, file_kind, read_source
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.validation.outputs import (
    RunOutput,
    compare_outputs,
    compare_text,
    decode,
    snapshot,
)
from accls.validation.sandbox import Limits, network_wrapper, run_limited

__all__ = [
    "RunRecord",
    "VerifyInputError",
    "VerifyReport",
    "VerifySettings",
    "compare_text",
    "render_report",
    "verify",
]

BUILD_TIMEOUT_S = 120.0
_STDERR_TAIL = 300


class VerifyInputError(InputError):
    """Bad input to `verify` (missing file, bad setting); the message is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifySettings:
    """How to build, run and compare; the defaults suit a small test program."""

    threads: tuple[int, ...] = (1, 2, 4)
    tolerance: float = 1e-9
    cpu_s: int = 10
    memory_mb: int = 2048
    timeout_s: float = 30.0
    cc: str = "gcc"
    cflags: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    stdin_path: str | None = None
    data: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRecord:
    """One execution of the serial or the annotated program, and its verdict."""

    label: str
    threads: int | None  # OMP_NUM_THREADS; None for the serial build
    command: tuple[str, ...]
    exit_code: int | None
    signal: str | None
    limit: str | None
    wall_s: float
    cpu_s: float
    files: tuple[str, ...]  # files left in the working directory
    result: str  # "reference", "match", or why it differs or failed
    stderr_tail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """What verify ran and found; `equivalent` is None when it cannot decide."""

    equivalent: bool | None
    runs: tuple[RunRecord, ...]
    commands: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...]
    pragmas_inserted: int


def _check_inputs(path: str, settings: VerifySettings) -> str:
    """The source text; VerifyInputError on any bad path or setting."""
    try:
        text = read_source(path)
    except InputError as exc:
        raise VerifyInputError(str(exc)) from None
    if not settings.threads or any(t < 1 for t in settings.threads):
        raise VerifyInputError("threads: give one or more positive thread counts")
    if settings.tolerance < 0 or not math.isfinite(settings.tolerance):
        raise VerifyInputError("tolerance: must be a finite number >= 0")
    if settings.cpu_s < 1 or settings.memory_mb < 1 or settings.timeout_s <= 0:
        raise VerifyInputError("limits: CPU seconds, memory MB and timeout must be > 0")
    if settings.stdin_path is not None:
        _check_regular(settings.stdin_path, "stdin file")
    names = [os.path.basename(os.path.normpath(d)) for d in settings.data]
    for item in settings.data:
        _check_data(item)
    if len(set(names)) != len(names):
        raise VerifyInputError("data: two data files share a name")
    return text


def _check_regular(path: str, what: str) -> None:
    """VerifyInputError unless `path` is a regular file (a FIFO would block)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise VerifyInputError(f"{path}: {what}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise VerifyInputError(f"{path}: {what} is {file_kind(mode)}")


def _check_data(item: str) -> None:
    """A data file, or a folder of regular files, folders and links."""
    if not os.path.isdir(item):
        _check_regular(item, "data file")
        return
    for folder, dirs, files in os.walk(item):
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                raise VerifyInputError(f"{path}: data file is {file_kind(mode)}")


def _run_env(threads: int | None, tmp: Path) -> dict[str, str]:
    """The caller's environment without OpenMP settings, plus the run's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OMP_", "GOMP_", "KMP_"))
    }
    env["TMPDIR"] = str(tmp)
    if threads is not None:
        env |= _omp_env(threads)
    return env


def _omp_env(threads: int) -> dict[str, str]:
    # Passive waiting keeps idle threads from burning the CPU-time limit when
    # the host has fewer cores than threads.
    return {
        "OMP_NUM_THREADS": str(threads),
        "OMP_DYNAMIC": "false",
        "OMP_WAIT_POLICY": "passive",
    }


class _Session:
    """One verification: its scratch directory and everything it ran."""

    def __init__(self, settings: VerifySettings, root: Path) -> None:
        self.settings = settings
        self.root = root
        self.commands: list[tuple[str, ...]] = []
        self.runs: list[RunRecord] = []
        self.notes: list[str] = []
        self.wrapper, network = network_wrapper()
        self.notes.append(network)
        s = settings
        self.notes.append(
            f"limits per run: CPU {s.cpu_s} s, address space {s.memory_mb} MiB, "
            f"wall clock {s.timeout_s:g} s, files {1024} MiB, no core dumps; "
            f"threads {', '.join(map(str, s.threads))}; tolerance {s.tolerance:g}"
        )
        self.notes.append(
            f"each run: fresh working directory holding only the data files "
            f"({', '.join(s.data) or 'none'}); "
            f"stdin from {s.stdin_path or '/dev/null'}; "
            "the caller's OMP_*/GOMP_*/KMP_* variables removed, TMPDIR per run"
        )

    def build(self, argv: list[str], what: str) -> bool:
        """Compile; on failure add a note with the compiler's last lines."""
        self.commands.append(tuple(argv))
        try:
            proc = subprocess.run(
                argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.notes.append(f"{what} does not build: {exc}")
            return False
        if proc.returncode != 0:
            tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
            self.notes.append(f"{what} does not build (exit {proc.returncode}): {tail}")
            return False
        return True

    def execute(self, exe: Path, label: str, threads: int | None) -> RunOutput:
        """Run `exe` in a fresh working directory; record it; return its output."""
        s = self.settings
        base = self.root / "runs" / label
        cwd, tmp = base / "cwd", base / "tmp"
        cwd.mkdir(parents=True)
        tmp.mkdir()
        for item in s.data:
            dest = cwd / os.path.basename(os.path.normpath(item))
            if os.path.isdir(item):
                shutil.copytree(item, dest, symlinks=True)
            else:
                shutil.copy2(item, dest)
        argv = [*self.wrapper, str(exe), *s.args]
        shown = (
            []
            if threads is None
            else [f"{k}={v}" for k, v in _omp_env(threads).items()]
        )
        command = tuple((["env", *shown] if shown else []) + argv)
        self.commands.append(command)
        outcome = run_limited(
            argv,
            cwd=str(cwd),
            env=_run_env(threads, tmp),
            stdin_path=s.stdin_path,
            stdout_path=str(base / "stdout"),
            stderr_path=str(base / "stderr"),
            limits=Limits(cpu_s=s.cpu_s, memory_mb=s.memory_mb, timeout_s=s.timeout_s),
        )
        files = snapshot(cwd)
        stderr = (base / "stderr").read_bytes()[-_STDERR_TAIL:]
        self.runs.append(
            RunRecord(
                label=label,
                threads=threads,
                command=command,
                exit_code=outcome.exit_code,
                signal=outcome.signal,
                limit=outcome.limit,
                wall_s=outcome.wall_s,
                cpu_s=outcome.cpu_s,
                files=tuple(files),
                result="",
                stderr_tail=decode(stderr).strip(),
            )
        )
        return RunOutput(outcome.exit_code, (base / "stdout").read_bytes(), files)

    def judge(self, result: str) -> None:
        """Set the verdict of the latest run."""
        self.runs[-1] = dataclasses.replace(self.runs[-1], result=result)

    def failure(self, output: RunOutput) -> str | None:
        """Why the latest run cannot serve (crash, limit, non-zero exit), or None."""
        last = self.runs[-1]
        if last.limit is not None:
            return f"stopped by the {last.limit}"
        if last.signal is not None:
            return f"killed by {last.signal}"
        if output.exit_code != 0:
            return f"exit code {output.exit_code}"
        return None


def _compare_parallel(session: _Session, exe: Path, reference: RunOutput) -> bool:
    """Run the annotated program at every thread count; True if all match."""
    same = True
    for threads in session.settings.threads:
        output = session.execute(exe, f"openmp-{threads}", threads)
        last = session.runs[-1]
        stopped = last.limit or last.signal
        diff = (
            f"stopped: {stopped}"
            if stopped
            else compare_outputs(reference, output, session.settings.tolerance)
        )
        session.judge("match" if diff is None else f"MISMATCH: {diff}")
        same = same and diff is None
    return same


def _decide(session: _Session, path: str, annotated: str) -> bool | None:
    """Build both programs, run them, and compare; None when undecidable."""
    s = session.settings
    cc = shutil.which(s.cc)
    if cc is None:
        session.notes.append(f"compiler {s.cc!r} not found; nothing was run")
        return None
    includes = [f"-I{d}" for d in s.include_dirs]
    path = os.path.abspath(path)  # a name starting with "-" is not an option
    serial, parallel = session.root / "serial", session.root / "openmp"
    if not session.build(
        [cc, "-O1", "-std=gnu11", *includes, path, *s.cflags, "-o", str(serial), "-lm"],
        "the original program",
    ):
        return None
    copy = session.root / "annotated" / os.path.basename(path)
    copy.parent.mkdir()
    copy.write_text(annotated, encoding="utf-8", errors="surrogateescape", newline="")
    # -iquote keeps `#include "local.h"` working from the annotated copy.
    quote = ["-iquote", os.path.dirname(path)]
    flags = ["-O1", "-std=gnu11", "-fopenmp", *quote, *includes]
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


def verify(path: str, settings: VerifySettings) -> VerifyReport:
    """Build, run and compare the original and OpenMP-annotated `path`."""
    text = _check_inputs(path, settings)
    analysis = analyze_text(
        text, path, settings.include_dirs, AnalysisOptions(dialect="omp")
    )
    suggestions = suggest_file(
        analysis, SuggestOptions(model=Dialect.OPENMP, target=Target.CPU)
    )
    inserted = sum(
        1 for s in suggestions if s.pragma is not None and s.existing is None
    )
    with tempfile.TemporaryDirectory(prefix="accls-verify-") as scratch:
        session = _Session(settings, Path(scratch))
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
