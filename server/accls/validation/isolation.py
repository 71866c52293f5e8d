"""The bubblewrap sandbox `verify` runs programs in, and the probe that finds it.

Inside, the program sees the host's folders read-only, minus the places that
hold secrets and sockets (/home, /root, /run, /tmp), a fresh /dev and /proc,
its own writable working folder (/accls/work) and private /tmp, and nothing
else it can write. It has its own user, PID, network, IPC, UTS and cgroup
namespaces, cannot create user namespaces or UNIX sockets, starts a new
session, and dies with its parent; when it exits, its PID namespace goes with
it, daemons included. A root caller runs it as `nobody`, since the kernel does
not apply RLIMIT_NPROC to root.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from accls.validation.seccomp import unix_socket_filter

__all__ = [
    "NOBODY",
    "PROGRAM_DIR",
    "WORK_DIR",
    "Isolation",
    "find_isolation",
    "reachable_temp_dir",
    "sandbox_command",
]

WORK_DIR = "/accls/work"
"""The program's working folder inside the sandbox."""

PROGRAM_DIR = "/accls/program"
"""Where the built program is mounted, read-only."""

NOBODY = 65534
"""The user a root caller runs the program as."""

# Host folders not shown: secrets, sockets, and what the sandbox provides itself.
_HIDDEN = frozenset({"accls", "dev", "home", "proc", "root", "run", "tmp"})
_PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Isolation:
    """How runs are isolated: the bwrap binary, or None with the reason why not."""

    bwrap: str | None
    reason: str
    seccomp: bytes | None = None
    prlimit: str | None = None

    @property
    def available(self) -> bool:
        """Whether runs can be sandboxed."""
        return self.bwrap is not None


def drop_root() -> None:
    """In a child about to exec: become `nobody` if running as root."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)


def reachable_temp_dir() -> str | None:
    """Where scratch folders go: the temp folder, if the sandbox can reach it.

    A root caller's program runs as nobody, and bubblewrap mounts its folders
    as nobody, so every folder above a scratch folder must let others through.
    None means tempfile's default.
    """
    if os.geteuid() != 0:
        return None
    folder = os.path.realpath(tempfile.gettempdir())
    while True:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return "/tmp" if os.path.isdir("/tmp") else None
        if folder == "/":
            return None
        folder = os.path.dirname(folder)


def _top_level() -> list[tuple[str, str | None]]:
    """The host's top-level entries to show: (name, symlink target or None)."""
    shown: list[tuple[str, str | None]] = []
    for name in sorted(os.listdir("/")):
        path = "/" + name
        if name in _HIDDEN:
            continue
        if os.path.islink(path):
            shown.append((name, os.readlink(path)))
        elif os.path.isdir(path):
            shown.append((name, None))
    return shown


def sandbox_command(
    isolation: Isolation,
    *,
    work: str,
    tmp: str,
    program: str,
    args: Sequence[str],
    env: Mapping[str, str],
    max_processes: int,
    seccomp_fd: int | None,
) -> list[str]:
    """The bwrap command line running `program ARGS` with `work` as its folder."""
    assert isolation.bwrap is not None
    argv = [
        isolation.bwrap,
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]
    for key, value in sorted(env.items()):
        argv += ["--setenv", key, value]
    for name, target in _top_level():
        if target is None:
            argv += ["--ro-bind", "/" + name, "/" + name]
        else:
            argv += ["--symlink", target, "/" + name]
    argv += ["--dev", "/dev", "--proc", "/proc", "--dir", "/run"]
    argv += ["--bind", tmp, "/tmp", "--bind", tmp, "/dev/shm"]
    argv += ["--bind", work, WORK_DIR]
    inside = f"{PROGRAM_DIR}/{os.path.basename(program)}"
    argv += ["--ro-bind", program, inside, "--chdir", WORK_DIR]
    argv += ["--remount-ro", "/"]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv.append("--")
    if isolation.prlimit is not None:
        # Set inside the new user namespace, the limit counts only the
        # sandbox's processes, not all of the caller's.
        argv += [isolation.prlimit, f"--nproc={max_processes}"]
    return [*argv, inside, *args]


def seccomp_file(isolation: Isolation) -> int | None:
    """A readable descriptor holding the seccomp filter, or None."""
    if isolation.seccomp is None:
        return None
    fd = os.memfd_create("accls-seccomp", 0)
    os.write(fd, isolation.seccomp)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _probe(isolation: Isolation) -> str | None:
    """Run `true` in the sandbox; the reason it fails, or None."""
    true = shutil.which("true")
    if true is None:
        return "no `true` binary to probe with"
    with tempfile.TemporaryDirectory(
        prefix="accls-probe-", dir=reachable_temp_dir()
    ) as folder:
        os.chmod(folder, 0o777)
        fd = seccomp_file(isolation)
        argv = sandbox_command(
            isolation,
            work=folder,
            tmp=folder,
            program=true,
            args=(),
            env={},
            max_processes=16,
            seccomp_fd=fd,
        )
        try:
            proc = subprocess.run(
                argv,
                capture_output=True,
                timeout=_PROBE_TIMEOUT_S,
                check=False,
                pass_fds=() if fd is None else (fd,),
                preexec_fn=drop_root,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return str(exc)
        finally:
            if fd is not None:
                os.close(fd)
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else f"exit {proc.returncode}"
    return None


@functools.cache
def find_isolation() -> Isolation:
    """The sandbox this machine offers; `available` is False with a reason if none."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Isolation(None, "bubblewrap (`bwrap`) is not installed")
    found = Isolation(
        bwrap,
        "sandboxed with bubblewrap",
        seccomp=unix_socket_filter(),
        prlimit=shutil.which("prlimit"),
    )
    failure = _probe(found)
    if failure is not None:
        return Isolation(None, f"bubblewrap does not work here ({failure})")
    return found


def isolation_notes(isolation: Isolation) -> tuple[str, ...]:
    """What the sandbox provides, for the report."""
    if not isolation.available:
        return (f"NOT sandboxed: {isolation.reason}; --no-sandbox was given",)
    notes = [
        "sandbox: bubblewrap; read-only root without /home, /root, /run and /tmp; "
        f"writable {WORK_DIR} and a private /tmp; no network; own PID namespace, "
        "killed as a whole at the end; scrubbed environment (OMP_* kept)"
        + ("; runs as nobody" if os.geteuid() == 0 else ""),
        "UNIX sockets and io_uring blocked (seccomp)"
        if isolation.seccomp is not None
        else "UNIX sockets: only those under /home, /root, /run and /tmp are hidden",
    ]
    if isolation.prlimit is None:
        notes.append("no process-count limit: `prlimit` not found")
    return tuple(notes)
