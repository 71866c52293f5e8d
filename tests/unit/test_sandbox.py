"""`verify` is a security boundary: programs that try each way out must stay in.

Each program below tries one escape and reports through its exit code (0: it
stayed in) or leaves evidence the test looks for on the host afterwards.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from accls.validation.cgroup import tree_cgroup
from accls.validation.isolation import find_isolation
from accls.validation.run import (
    VerifyInputError,
    VerifyReport,
    VerifySettings,
    render_report,
    verify,
)
from accls.validation.sandbox import _stop_signals_held
from accls.validation.seccomp import unix_socket_filter
from support.cli import ROOT, run_accls

Need = Callable[[str], str]
THREADS = (2,)
# Generous on a loaded machine (accls imports, analyses and builds twice before
# the program starts), yet well under the stopped program's 300 s sleep: an
# accls that waited for its program instead of killing it still fails.
START_S = 120.0
STOP_S = 60.0

# A loop the analysis parallelizes, so each program has a pragma to verify.
KERNEL = """
static double work(void) {
  static double a[1000];
  double s = 0;
  for (int i = 0; i < 1000; i++) a[i] = i * 0.5;
  for (int i = 0; i < 1000; i++) s += a[i];
  return s;
}
"""


@pytest.fixture
def gcc(need: Need, sandbox: None) -> str:
    return need("gcc")


def _program(tmp_path: Path, body: str, headers: str = "") -> Path:
    src = tmp_path / "escape.c"
    src.write_text(
        "#define _GNU_SOURCE\n#include <stdio.h>\n#include <stdlib.h>\n"
        "#include <string.h>\n#include <unistd.h>\n" + headers + KERNEL + body
    )
    return src


def _run(src: Path, gcc: str, *args: str) -> VerifyReport:
    settings = VerifySettings(cc=gcc, threads=THREADS, timeout_s=20.0, args=args)
    return verify(str(src), settings)


def _first_exit(report: VerifyReport) -> int | None:
    assert report.runs, render_report(report)
    return report.runs[0].exit_code


def _processes_named(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                comm = Path(f"/proc/{entry}/comm").read_text().strip()
                if comm == token:
                    found.append(int(entry))
    return found


@contextlib.contextmanager
def _reaped(token: str) -> Iterator[None]:
    """Kill whatever escaped under `token`, so a failing test leaves nothing."""
    try:
        yield
    finally:
        for pid in _processes_named(token):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _scratch_dirs(pid: int) -> list[str]:
    """The scratch folders the accls process `pid` left."""
    folders = {tempfile.gettempdir(), "/tmp"}
    prefix = f"accls-verify-{pid}-"
    return [
        os.path.join(f, n)
        for f in folders
        for n in os.listdir(f)
        if n.startswith(prefix)
    ]


# ----- the escapes ------------------------------------------------------------------


def test_writes_outside_the_work_folder_stay_inside(gcc: str, tmp_path: Path) -> None:
    token = secrets.token_hex(4)
    targets = [
        tmp_path / "outside.txt",  # the caller's /tmp
        ROOT / f".escaped-{token}",  # a folder the caller can write
        Path(tempfile.gettempdir()) / f"escaped-{token}",
    ]
    src = _program(
        tmp_path,
        """
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "w");
    if (f) { fputs("escaped\\n", f); fclose(f); }
  }
  printf("%g\\n", work());
  return 0;
}
""",
    )
    try:
        report = _run(src, gcc, *map(str, targets))
        assert _first_exit(report) == 0, render_report(report)
        assert [t for t in targets if t.exists()] == []
    finally:
        for target in targets:
            with contextlib.suppress(FileNotFoundError):
                target.unlink()


def test_unix_sockets_of_the_host_are_out_of_reach(gcc: str, tmp_path: Path) -> None:
    token = secrets.token_hex(4)
    paths = [tmp_path / "service.sock", ROOT / f".accls-test-{token}.sock"]
    listeners = []
    for path in paths:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        path.chmod(0o777)
        listeners.append(listener)
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(f"\0accls-test-{token}")
    listeners.append(abstract)
    for listener in listeners:
        listener.listen(8)
        listener.setblocking(False)
    src = _program(
        tmp_path,
        """
int main(int argc, char **argv) {
  int reached = 0;
  for (int i = 1; i < argc; i++) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t n = strlen(argv[i]);
    memcpy(addr.sun_path, argv[i], n);
    if (argv[i][0] == '@') addr.sun_path[0] = 0;  /* abstract */
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&addr,
                           offsetof(struct sockaddr_un, sun_path) + n) == 0)
      reached++;
  }
  printf("%g\\n", work());
  return reached;
}
""",
        headers="#include <stddef.h>\n#include <sys/socket.h>\n#include <sys/un.h>\n",
    )
    try:
        report = _run(src, gcc, *map(str, paths), f"@accls-test-{token}")
        assert _first_exit(report) == 0, render_report(report)
        for listener in listeners:
            with pytest.raises(BlockingIOError):
                listener.accept()
    finally:
        for listener in listeners:
            listener.close()
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def test_a_setsid_daemon_does_not_outlive_the_run(gcc: str, tmp_path: Path) -> None:
    token = f"esc{secrets.token_hex(4)}"
    src = _program(
        tmp_path,
        """
int main(int argc, char **argv) {
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      prctl(PR_SET_NAME, argv[1]);
      sleep(60);
      _exit(0);
    }
    _exit(0);
  }
  printf("%g\\n", work());
  return 0;
}
""",
        headers="#include <sys/prctl.h>\n",
    )
    with _reaped(token):
        report = _run(src, gcc, token)
        assert _first_exit(report) == 0, render_report(report)
        time.sleep(0.5)
        assert _processes_named(token) == []


def test_a_fork_bomb_is_bounded(gcc: str, tmp_path: Path) -> None:
    src = _program(
        tmp_path,
        """
int main(void) {
  int children = 0;
  while (children < 2000) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) { sleep(30); _exit(0); }
    children++;
  }
  printf("%g\\n", work());
  return children >= 2000;  /* 1: nothing stopped it */
}
""",
    )
    report = _run(src, gcc)
    assert _first_exit(report) == 0, render_report(report)


def test_the_program_sees_no_secrets_but_keeps_openmp_settings(
    gcc: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACCLS_TEST_SECRET_TOKEN", "hunter2")
    monkeypatch.setenv("OMP_STACKSIZE", "4M")
    src = _program(
        tmp_path,
        """
int main(void) {
  if (getenv("ACCLS_TEST_SECRET_TOKEN")) return 3;
  if (!getenv("OMP_STACKSIZE")) return 4;
  printf("%g\\n", work());
  return 0;
}
""",
    )
    report = _run(src, gcc)
    assert _first_exit(report) == 0, render_report(report)
    assert report.equivalent is True, render_report(report)


def test_the_program_gets_the_stop_signals_unblocked(gcc: str, tmp_path: Path) -> None:
    # accls holds Ctrl-C and SIGTERM while it forks; the program must not inherit that.
    src = _program(
        tmp_path,
        """
int main(void) {
  char line[256];
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return 5;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "SigBlk:", 7) == 0 && strtoull(line + 7, NULL, 16) != 0) return 6;
  fclose(f);
  printf("%g\\n", work());
  return 0;
}
""",
    )
    report = _run(src, gcc)
    assert _first_exit(report) == 0, render_report(report)
    assert report.equivalent is True, render_report(report)


def _interrupted_while_held(log: list[str]) -> None:
    with _stop_signals_held():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        log.append("the hold ran to its end")


def test_ctrl_c_while_the_run_starts_waits_for_its_handle() -> None:
    # Raised inside Popen after the fork, KeyboardInterrupt would orphan the
    # program; held, it arrives when the hold ends. Python's own Ctrl-C handler,
    # whatever the runner inherited (a background job ignores SIGINT).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    log: list[str] = []
    try:
        with pytest.raises(KeyboardInterrupt):
            _interrupted_while_held(log)
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)
    assert log == ["the hold ran to its end"]


KILL_ANCESTOR = """
#include <signal.h>
/* Kill the first ancestor whose command line mentions accls. */
int main(void) {
  pid_t pid = getppid();
  while (pid > 1) {
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f) fclose(f);
    for (size_t i = 0; i < n; i++) if (!line[i]) line[i] = ' ';
    line[n] = 0;
    if (strstr(line, "accls")) { kill(pid, SIGKILL); break; }
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    int ppid = 0;
    if (!f || fscanf(f, "%*d (%*[^)]) %*c %d", &ppid) != 1) { if (f) fclose(f); break; }
    fclose(f);
    pid = ppid;
  }
  usleep(200000);
  printf("%g\\n", work());
  return 0;
}
"""


_STOP = {signal.SIGINT, signal.SIGTERM}


def _default_stop_signals() -> None:
    # A runner started as a background job ignores SIGINT, and a child keeps an
    # inherited "ignore" or block: give accls what a terminal gives.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP)


def _start_accls(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    return subprocess.Popen(
        [sys.executable, "-m", "accls", "verify", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=_default_stop_signals,
    )


def test_the_program_cannot_kill_accls(gcc: str, tmp_path: Path) -> None:
    src = _program(tmp_path, KILL_ANCESTOR)
    accls = _start_accls("--cc", gcc, "--threads", "2", str(src))
    out, _ = accls.communicate(timeout=120)
    assert accls.returncode == 0, out
    assert out.startswith("verify: EQUIVALENT")
    assert _scratch_dirs(accls.pid) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_stopping_accls_kills_the_program_and_removes_the_scratch(
    gcc: str, tmp_path: Path, signum: int
) -> None:
    token = f"esc{secrets.token_hex(4)}"
    src = _program(
        tmp_path,
        """
int main(int argc, char **argv) {
  prctl(PR_SET_NAME, argv[1]);
  sleep(300);
  printf("%g\\n", work());
  return 0;
}
""",
        headers="#include <sys/prctl.h>\n",
    )
    with _reaped(token):
        accls = _start_accls("--cc", gcc, "--timeout", "600", str(src), "--", token)
        try:
            deadline = time.monotonic() + START_S
            while not _processes_named(token) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _processes_named(token), "the program never started"
            accls.send_signal(signum)
            accls.wait(timeout=STOP_S)
        finally:
            accls.kill()
            accls.communicate()
        time.sleep(0.5)
        assert _processes_named(token) == []
        left = _scratch_dirs(accls.pid)
        if signum == signal.SIGKILL:
            # Nothing runs after SIGKILL to remove it; the program died anyway.
            for folder in left:
                shutil.rmtree(folder, ignore_errors=True)
        else:
            assert left == []


# ----- the sandbox itself -----------------------------------------------------------


def test_without_bubblewrap_verify_refuses_unless_waived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, need: Need
) -> None:
    gcc = need("gcc")
    src = _program(tmp_path, 'int main(void) { printf("%g\\n", work()); }\n')
    real_which = shutil.which

    def which(name: str, *args: Any, **kwargs: Any) -> str | None:
        return None if name == "bwrap" else real_which(name, *args, **kwargs)

    monkeypatch.setattr(shutil, "which", which)
    find_isolation.cache_clear()
    try:
        with pytest.raises(VerifyInputError, match="--no-sandbox"):
            verify(str(src), VerifySettings(cc=gcc, threads=THREADS))
        report = verify(
            str(src), VerifySettings(cc=gcc, threads=THREADS, sandbox=False)
        )
    finally:
        find_isolation.cache_clear()
    assert report.equivalent is True, render_report(report)
    assert any(n.startswith("NOT sandboxed") for n in report.notes)


def test_cli_without_a_sandbox_is_one_line(tmp_path: Path, need: Need) -> None:
    need("gcc")
    src = _program(tmp_path, 'int main(void) { printf("%g\\n", work()); }\n')
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "PYTHONPATH": str(ROOT / "server")}
    proc = subprocess.run(
        [sys.executable, "-m", "accls", "verify", str(src)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("accls: error: cannot sandbox the program")
    assert proc.stderr.count("\n") == 1


def test_the_seccomp_filter_is_well_formed() -> None:
    program = unix_socket_filter("x86_64")
    assert program is not None
    assert len(program) % 8 == 0
    assert unix_socket_filter("sparc") is None


def test_memory_bound_uses_a_cgroup_v2_child_where_enabled(tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    (root / "work.slice").mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (root / "work.slice" / "cgroup.subtree_control").write_text("memory pids\n")
    membership = tmp_path / "membership"
    membership.write_text("0::/work.slice\n")
    with tree_cgroup(1 << 30, 70, root, membership) as cgroup:
        assert cgroup is not None
        assert (cgroup.path / "memory.max").read_text() == str(1 << 30)
        assert (cgroup.path / "pids.max").read_text() == "70"
        assert not cgroup.out_of_memory()
        (cgroup.path / "memory.events").write_text("low 0\noom 1\noom_kill 1\n")
        assert cgroup.out_of_memory()
        for name in ("memory.max", "memory.swap.max", "pids.max", "memory.events"):
            (cgroup.path / name).unlink()
    assert list((root / "work.slice").iterdir()) == [
        root / "work.slice" / "cgroup.subtree_control"
    ]


def test_no_cgroup_without_the_memory_controller(tmp_path: Path) -> None:
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpu pids\n")
    (root / "cgroup.subtree_control").write_text("pids\n")
    membership = tmp_path / "membership"
    membership.write_text("0::/\n")
    with tree_cgroup(1 << 30, 70, root, membership) as cgroup:
        assert cgroup is None


# ----- options ----------------------------------------------------------------------


def test_options_after_file_are_applied(gcc: str, tmp_path: Path) -> None:
    src = _program(
        tmp_path,
        'int main(int argc, char **argv) { printf("%d %g\\n", argc, work()); '
        'return argc == 2 && strcmp(argv[1], "x") == 0 ? 0 : 5; }\n',
    )
    proc = run_accls("verify", str(src), "--cc", gcc, "--threads", "3", "--", "x")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "openmp-3" in proc.stdout
    assert "openmp-4" not in proc.stdout


@pytest.mark.parametrize(
    "option",
    [
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--timeout", "-1"),
        ("--cpu-seconds", "0"),
        ("--memory-mb", "99999999999999"),
        ("--threads", "0"),
        ("--threads", "99999"),
        ('--cflags=-DX="unbalanced',),
    ],
)
def test_absurd_options_are_one_line_errors(
    tmp_path: Path, option: tuple[str, ...]
) -> None:
    src = _program(tmp_path, 'int main(void) { printf("%g\\n", work()); }\n')
    proc = run_accls("verify", *option, str(src))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("accls: error:")
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_too_many_threads_for_the_limits_is_undecided(gcc: str, tmp_path: Path) -> None:
    src = _program(tmp_path, 'int main(void) { printf("%g\\n", work()); }\n')
    proc = run_accls(
        "verify", str(src), "--cc", gcc, "--threads", "300", "--memory-mb", "256"
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stdout.startswith("verify: UNDECIDED")


def test_a_private_temp_folder_does_not_break_the_sandbox(
    gcc: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root caller runs programs as nobody")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    src = _program(tmp_path, 'int main(void) { printf("%g\\n", work()); }\n')
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", None)
    find_isolation.cache_clear()
    try:
        report = _run(src, gcc)
    finally:
        find_isolation.cache_clear()
    assert report.equivalent is True, render_report(report)
