"""A run session: builds and sandboxed runs of a program, each recorded.

`accls verify` and `accls bench` share it: a scratch directory, the sandbox, the
limits, a fresh working directory per run, and a record of every command.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from accls.validation.isolation import Isolation, find_isolation, isolation_notes
from accls.validation.outputs import RunOutput, decode, snapshot
from accls.validation.sandbox import (
    FILE_LIMIT_BYTES,
    Limits,
    RunFiles,
    network_wrapper,
    run_limited,
)
from accls.validation.verify_settings import VerifyInputError, VerifySettings

__all__ = [
    "BUILD_TIMEOUT_S",
    "RunRecord",
    "RunSession",
    "omp_env",
    "run_env",
    "short_of_resources",
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


# Locale and OpenMP settings pass into the sandbox; nothing else does (secrets).
_KEPT_ENV = ("LANG", "LANGUAGE", "TZ")
_KEPT_PREFIXES = ("LC_", "OMP_", "GOMP_", "KMP_")
_SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


def run_env(threads: int | None, passive: bool = True) -> dict[str, str]:
    """A scrubbed environment: locale and OpenMP settings, plus the run's own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k in _KEPT_ENV or k.startswith(_KEPT_PREFIXES)
    }
    env["PATH"] = _SAFE_PATH
    if threads is not None:
        env |= omp_env(threads, passive)
    return env


def omp_env(threads: int, passive: bool = True) -> dict[str, str]:
    """The OpenMP settings of a run with `threads` threads."""
    # Passive waiting keeps idle threads from burning the CPU-time limit when
    # the host has fewer cores than threads.
    env = {"OMP_NUM_THREADS": str(threads), "OMP_DYNAMIC": "false"}
    return env | ({"OMP_WAIT_POLICY": "passive"} if passive else {})


def _isolation(settings: VerifySettings) -> Isolation:
    """The sandbox, or VerifyInputError when there is none and none was waived."""
    isolation = find_isolation()
    if not isolation.available and settings.sandbox:
        raise VerifyInputError(
            f"cannot sandbox the program: {isolation.reason}; install bubblewrap, "
            "or pass --no-sandbox to run it unconfined"
        )
    return isolation


class RunSession:
    """One verify or bench run: its scratch directory and everything it ran."""

    def __init__(
        self, settings: VerifySettings, root: Path, *, passive: bool = True
    ) -> None:
        self.settings = settings
        self.passive = passive  # OMP_WAIT_POLICY=passive (verify), else the default
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
            else [f"{k}={v}" for k, v in omp_env(threads, self.passive).items()]
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
            env=run_env(threads, self.passive),
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


def short_of_resources(last: RunRecord) -> str | None:
    """Why a run says nothing about equivalence (a limit, no threads), or None."""
    if last.limit is not None:
        return f"stopped by the {last.limit}"
    match = _RESOURCE_FAILURE.search(last.stderr_tail)
    if match is not None and last.exit_code != 0:
        return f"the OpenMP runtime ran out of resources ({match.group(0)})"
    return None
