"""Run one untrusted program under CPU, memory, process and wall-clock limits.

Normally inside the bubblewrap sandbox of `isolation.py`; with `--no-sandbox`
(where bubblewrap is missing) directly, offline where `unshare -rn` works.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from accls.validation.cgroup import TreeCgroup, tree_cgroup
from accls.validation.isolation import (
    NOBODY,
    WORK_DIR,
    Isolation,
    drop_root,
    sandbox_command,
    seccomp_file,
)

__all__ = [
    "FILE_LIMIT_BYTES",
    "Limits",
    "Outcome",
    "RunFiles",
    "network_wrapper",
    "run_limited",
]

FILE_LIMIT_BYTES = 1 << 30
"""RLIMIT_FSIZE: the largest file (stdout included) a run may write."""

_PROBE_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one run may use."""

    cpu_s: int
    memory_mb: int
    timeout_s: float
    max_processes: int = 256


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """How one run ended."""

    exit_code: int | None  # None when it was killed by a signal
    signal: str | None
    limit: str | None  # which limit stopped it, if one did
    wall_s: float
    cpu_s: float
    tree_memory: bool = False  # memory bounded for the whole tree, not per process


@dataclass(frozen=True, slots=True, kw_only=True)
class RunFiles:
    """Where one run reads, writes and works (host paths)."""

    work: str
    tmp: str
    stdin: str | None
    stdout: str
    stderr: str


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


def _set_limits(
    limits: Limits, cgroup: TreeCgroup | None, sandboxed: bool
) -> Callable[[], None]:
    """A preexec_fn applying the limits in the child before exec."""
    memory = limits.memory_mb * 1024 * 1024
    enter = cgroup.enter() if cgroup is not None else None

    def apply() -> None:
        # Ctrl-C and SIGTERM reach the program, whatever accls inherited.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT_BYTES, FILE_LIMIT_BYTES))
        # A core file would land in the compared working directory.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if enter is not None:
            enter()
        if sandboxed:
            drop_root()

    return apply


_STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def _stop_signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while the run's process is created.

    A KeyboardInterrupt raised inside Popen after the fork would leave the
    program running with no handle to kill it. Python runs signal handlers in
    the main thread only, so there the handlers are swapped for one that notes
    the signal; once the handle exists the previous handler gets it, and
    run_limited's cleanup kills the process group.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def note(signum: int, frame: object) -> None:
        caught.append(signum)

    previous = {s: signal.signal(s, note) for s in sorted(_STOP_SIGNALS)}
    try:
        yield
    finally:
        for stop, handler in previous.items():
            signal.signal(stop, handler)
        for signum in caught[:1]:
            held = previous[signal.Signals(signum)]
            if callable(held):
                held(signum, None)
            elif held == signal.SIG_DFL:
                signal.raise_signal(signum)


def _signal_name(code: int) -> str | None:
    if code >= 0:
        return None
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def _which_limit(
    code: int, cpu_used: float, limits: Limits, cgroup: TreeCgroup | None
) -> str | None:
    if code == -signal.SIGXCPU or (
        code == -signal.SIGKILL and cpu_used >= limits.cpu_s
    ):
        return f"CPU limit of {limits.cpu_s} s"
    if code == -signal.SIGXFSZ:
        return f"file size limit of {FILE_LIMIT_BYTES >> 20} MiB"
    if cgroup is not None and cgroup.out_of_memory():
        return f"memory limit of {limits.memory_mb} MiB (whole process tree)"
    return None


def _sandbox_status(code: int) -> int:
    """The status as Popen gives it: bwrap reports death by signal N as 128+N."""
    if 128 < code < 128 + signal.NSIG:
        return -(code - 128)
    return code


def _prepare_folders(files: RunFiles) -> None:
    """Let the sandboxed user (nobody, for a root caller) write its folders."""
    if os.geteuid() != 0:
        return
    for folder in (files.work, files.tmp):
        for path, dirs, names in os.walk(folder):
            for name in [*dirs, *names]:
                os.lchown(os.path.join(path, name), NOBODY, NOBODY)
        os.chown(folder, NOBODY, NOBODY)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _command(
    program: str,
    args: Sequence[str],
    files: RunFiles,
    env: Mapping[str, str],
    limits: Limits,
    isolation: Isolation,
    seccomp_fd: int | None,
) -> tuple[list[str], dict[str, str]]:
    """The command line and the environment of one run."""
    if not isolation.available:
        prefix, _ = network_wrapper()
        return [*prefix, program, *args], {**env, "TMPDIR": files.tmp}
    argv = sandbox_command(
        isolation,
        work=files.work,
        tmp=files.tmp,
        program=program,
        args=args,
        env={**env, "TMPDIR": "/tmp", "HOME": WORK_DIR},
        max_processes=limits.max_processes,
        seccomp_fd=seccomp_fd,
    )
    return argv, {"PATH": os.defpath}


def run_limited(
    program: str,
    args: Sequence[str],
    *,
    files: RunFiles,
    env: Mapping[str, str],
    limits: Limits,
    isolation: Isolation,
) -> Outcome:
    """Run `program ARGS` under `limits`, sandboxed when `isolation` allows.

    On any exception (Ctrl-C, SIGTERM turned into one) the run's process group
    is killed before it propagates.
    """
    sandboxed = isolation.available
    if sandboxed:
        _prepare_folders(files)
    seccomp_fd = seccomp_file(isolation) if sandboxed else None
    argv, outer_env = _command(program, args, files, env, limits, isolation, seccomp_fd)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    memory = limits.memory_mb * 1024 * 1024
    with (
        tree_cgroup(memory, limits.max_processes) as cgroup,
        open(files.stdin or os.devnull, "rb") as stdin,
        open(files.stdout, "wb") as stdout,
        open(files.stderr, "wb") as stderr,
    ):
        proc: subprocess.Popen[bytes] | None = None
        timed_out = False
        try:
            try:
                with _stop_signals_held():
                    proc = subprocess.Popen(
                        argv,
                        cwd=files.work,
                        env=outer_env,
                        stdin=stdin,
                        stdout=stdout,
                        stderr=stderr,
                        start_new_session=True,
                        pass_fds=() if seccomp_fd is None else (seccomp_fd,),
                        preexec_fn=_set_limits(limits, cgroup, sandboxed),
                    )
            finally:
                if seccomp_fd is not None:
                    os.close(seccomp_fd)
            code = proc.wait(timeout=limits.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            # Also after a normal exit: without the sandbox, background
            # children it left would run on (with it, they died with it).
            if proc is not None:
                _kill_group(proc)
                code = proc.wait()
        wall = time.monotonic() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        tree_memory = cgroup is not None
        if sandboxed:
            code = _sandbox_status(code)
        limit = (
            f"wall-clock timeout of {limits.timeout_s:g} s (process group killed)"
            if timed_out
            else _which_limit(code, cpu, limits, cgroup)
        )
    return Outcome(
        exit_code=code if code >= 0 else None,
        signal=_signal_name(code),
        limit=limit,
        wall_s=wall,
        cpu_s=cpu,
        tree_memory=tree_memory,
    )
