"""Opt-in dynamic check: build, run and compare the original and annotated programs.

Builds the file serially and with the suggested OpenMP pragmas, runs both on the
user's inputs in fresh temporary directories under limits, and compares stdout
and the files each run leaves behind, numbers within a relative tolerance.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from accls.analysis import AnalysisOptions, analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.validation.isolation import (
    Isolation,
    find_isolation,
    isolation_notes,
    reachable_temp_dir,
)
from accls.validation.outputs import (
    RunOutput,
    compare_outputs,
    compare_text,
    decode,
    snapshot,
)
from accls.validation.sandbox import (
    FILE_LIMIT_BYTES,
    Limits,
    RunFiles,
    network_wrapper,
    run_limited,
)
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

BUILD_TIMEOUT_S = 120.0
_SPARE_PROCESSES = 64  # the program's own children, beside its OpenMP threads
_STDERR_TAIL = 300


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


# Locale and OpenMP settings pass into the sandbox; nothing else does (secrets).
_KEPT_ENV = ("LANG", "LANGUAGE", "TZ")
_KEPT_PREFIXES = ("LC_", "OMP_", "GOMP_", "KMP_")
_SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


def _run_env(threads: int | None) -> dict[str, str]:
    """A scrubbed environment: locale and OpenMP settings, plus the run's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k in _KEPT_ENV or k.startswith(_KEPT_PREFIXES)
    }
    env["PATH"] = _SAFE_PATH
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


def _isolation(settings: VerifySettings) -> Isolation:
    """The sandbox, or VerifyInputError when there is none and none was waived."""
    isolation = find_isolation()
    if not isolation.available and settings.sandbox:
        raise VerifyInputError(
            f"cannot sandbox the program: {isolation.reason}; install bubblewrap, "
            "or pass --no-sandbox to run it unconfined"
        )
    return isolation


class _Session:
    """One verification: its scratch directory and everything it ran."""

    def __init__(self, settings: VerifySettings, root: Path) -> None:
        self.settings = settings
        self.root = root
        self.commands: list[tuple[str, ...]] = []
        self.runs: list[RunRecord] = []
        self.notes: list[str] = []
        self.isolation = _isolation(settings)
        s = settings
        self.max_processes = max(s.threads) + _SPARE_PROCESSES
        self.notes.extend(isolation_notes(self.isolation))
        if not self.isolation.available:
            self.notes.append(network_wrapper()[1])
        self.notes.append(
            f"limits per run: CPU {s.cpu_s} s, address space {s.memory_mb} MiB "
            "per process, "
            f"wall clock {s.timeout_s:g} s, files {FILE_LIMIT_BYTES >> 20} MiB, "
            f"{self.max_processes} processes/threads, no core dumps; "
            f"threads {', '.join(map(str, s.threads))}; tolerance {s.tolerance:g}"
        )
        self.notes.append(
            f"each run: fresh working directory holding only the data files "
            f"({', '.join(s.data) or 'none'}); "
            f"stdin from {s.stdin_path or '/dev/null'}; "
            "environment: locale and the caller's OMP_*/GOMP_*/KMP_* only"
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
        if os.geteuid() == 0:
            # The program runs as nobody: let it reach (not list) its folders.
            for folder in (self.root, self.root / "runs", base):
                folder.chmod(0o711)
            exe.chmod(0o755)
        for item in s.data:
            dest = cwd / os.path.basename(os.path.normpath(item))
            if os.path.isdir(item):
                shutil.copytree(item, dest, symlinks=True)
            else:
                shutil.copy2(item, dest)
        shown = (
            []
            if threads is None
            else [f"{k}={v}" for k, v in _omp_env(threads).items()]
        )
        command = tuple((["env", *shown] if shown else []) + [str(exe), *s.args])
        self.commands.append(command)
        outcome = run_limited(
            str(exe),
            s.args,
            files=RunFiles(
                work=str(cwd),
                tmp=str(tmp),
                stdin=s.stdin_path,
                stdout=str(base / "stdout"),
                stderr=str(base / "stderr"),
            ),
            env=_run_env(threads),
            limits=Limits(
                cpu_s=s.cpu_s,
                memory_mb=s.memory_mb,
                timeout_s=s.timeout_s,
                max_processes=self.max_processes,
            ),
            isolation=self.isolation,
        )
        memory = (
            f"memory: {s.memory_mb} MiB for the whole process tree (cgroup v2)"
            if outcome.tree_memory
            else f"memory: {s.memory_mb} MiB per process only (RLIMIT_AS; no cgroup "
            "v2 memory controller available here), so children may each use that much"
        )
        if memory not in self.notes:
            self.notes.append(memory)
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


# The OpenMP runtime could not get threads or memory: the limits, not the
# pragmas, stopped the run.
_RESOURCE_FAILURE = re.compile(
    r"libgomp: (Thread creation failed|Out of memory|Cannot allocate)"
)


def _short_of_resources(last: RunRecord) -> str | None:
    """Why a run says nothing about equivalence (a limit, no threads), or None."""
    if last.limit is not None:
        return f"stopped by the {last.limit}"
    match = _RESOURCE_FAILURE.search(last.stderr_tail)
    if match is not None and last.exit_code != 0:
        return f"the OpenMP runtime ran out of resources ({match.group(0)})"
    return None


def _compare_parallel(
    session: _Session, exe: Path, reference: RunOutput
) -> bool | None:
    """Run the annotated program at every thread count.

    True if all match, False if one differs, None if some could not finish
    within the limits and none differs.
    """
    verdict: bool | None = True
    for threads in session.settings.threads:
        output = session.execute(exe, f"openmp-{threads}", threads)
        last = session.runs[-1]
        short = _short_of_resources(last)
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
