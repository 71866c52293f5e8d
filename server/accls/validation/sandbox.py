"""Run one untrusted program under CPU, memory and wall-clock limits, offline."""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["FILE_LIMIT_BYTES", "Limits", "Outcome", "network_wrapper", "run_limited"]

FILE_LIMIT_BYTES = 1 << 30
"""RLIMIT_FSIZE: the largest file (stdout included) a run may write."""

_PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one run may use."""

    cpu_s: int
    memory_mb: int
    timeout_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """How one run ended."""

    exit_code: int | None  # None when it was killed by a signal
    signal: str | None
    limit: str | None  # which limit stopped it, if one did
    wall_s: float
    cpu_s: float


@functools.cache
def network_wrapper() -> tuple[tuple[str, ...], str]:
    """Command prefix that cuts the network (may be empty), and a note saying so."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return (), "network NOT isolated: no `unshare` binary"
    prefix = (unshare, "-rn")
    try:
        probe = subprocess.run(
            [*prefix, "true"],
            capture_output=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return (), f"network NOT isolated: `unshare -rn true` failed ({exc})"
    if probe.returncode != 0:
        reason = probe.stderr.decode(errors="replace").strip().splitlines()
        why = reason[-1] if reason else f"exit {probe.returncode}"
        return (), f"network NOT isolated: `unshare -rn true` failed ({why})"
    return prefix, "network isolated: runs inside `unshare -rn` (no interfaces)"


def _set_limits(limits: Limits) -> Callable[[], None]:
    """A preexec_fn applying the limits in the child before exec."""
    memory = limits.memory_mb * 1024 * 1024

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT_BYTES, FILE_LIMIT_BYTES))
        # A core file would land in the compared working directory.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _signal_name(code: int) -> str | None:
    if code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def _which_limit(code: int, cpu_used: float, limits: Limits) -> str | None:
    if code == -signal.SIGXCPU or (
        code == -signal.SIGKILL and cpu_used >= limits.cpu_s
    ):
        return f"CPU limit of {limits.cpu_s} s"
    if code == -signal.SIGXFSZ:
        return f"file size limit of {FILE_LIMIT_BYTES >> 20} MiB"
    return None


def run_limited(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    stdin_path: str | None,
    stdout_path: str,
    stderr_path: str,
    limits: Limits,
) -> Outcome:
    """Run `argv` in its own session under `limits`; output goes to the two files."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    with (
        open(stdin_path or os.devnull, "rb") as stdin,
        open(stdout_path, "wb") as stdout,
        open(stderr_path, "wb") as stderr,
    ):
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,
            preexec_fn=_set_limits(limits),
        )
        timed_out = False
        try:
            code = proc.wait(timeout=limits.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            # The whole group: OpenMP threads die with the process, but children
            # the program forked would otherwise outlive it.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
        # Also after a normal exit: background children it left would run on.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    limit = (
        f"wall-clock timeout of {limits.timeout_s:g} s (process group killed)"
        if timed_out
        else _which_limit(code, cpu, limits)
    )
    return Outcome(
        exit_code=code if code >= 0 else None,
        signal=_signal_name(code),
        limit=limit,
        wall_s=wall,
        cpu_s=cpu,
    )
