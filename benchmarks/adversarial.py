"""Replay adversarial inputs against the CLI and the language server; print a table.

Run: `.venv/bin/python benchmarks/adversarial.py [--only NAME ...] [--timeout 120]`.
To measure another source tree (an older commit, say), pass `--server-dir
OLD/server`: every child then imports accls from there.

Each case runs in its own child process, with a time limit. The table gives the
wall time, CPU time, the child's own peak memory (VmHWM) and the outcome, and
the totals: tracebacks, escapes from `verify`, lost files, and the longest wait of
a request on a small document while another document is busy. It writes
benchmarks/out/adversarial.json. It reports; it never asserts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
from adversarial_inputs import (  # noqa: E402
    escaping_program,
    long_loop,
    macro_bomb,
    many_loops,
    one_line_loop,
)
from adversarial_lsp import lsp_big_document, lsp_busy_pair, lsp_short_length  # noqa: E402


@dataclass(slots=True)
class Result:
    """One case: what ran, how long, how much memory, and what came of it."""

    case: str
    seconds: float = 0.0
    cpu_s: float = 0.0  # user + system CPU of the child (and its waited children)
    peak_mb: float = 0.0
    outcome: str = ""
    tracebacks: int = 0
    escapes: int = 0
    lost_files: int = 0
    longest_wait_s: float | None = None  # a small document's request, another busy
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Child:
    """What a finished child process left."""

    seconds: float
    cpu_s: float
    peak_mb: float
    rc: int | None  # None when it was killed at the time limit
    stdout: str
    stderr: str


def run_child(
    cmd: list[str],
    env: dict[str, str],
    timeout: float,
    limits: Callable[[], None] | None = None,
    cwd: Path | None = None,
) -> Child:
    """Run `cmd`, measuring its wall time and its own peak RSS (wait4)."""
    peaks: list[float] = [0.0]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        killed = threading.Event()
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            preexec_fn=limits,
            start_new_session=True,
            cwd=cwd,
        )

        def kill() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        watch = threading.Thread(target=_watch_peak, args=(proc.pid, peaks))
        watch.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        timer.cancel()
        watch.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Child(
            seconds=seconds,
            cpu_s=usage.ru_utime + usage.ru_stime,
            peak_mb=peaks[0],
            rc=None if killed.is_set() else proc.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
        )


def peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident memory so far (VmHWM), MB; None once it is gone.

    wait4's ru_maxrss is no good here: Linux carries the forking parent's peak
    over exec, so every child would weigh at least as much as this script.
    """
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


def _watch_peak(pid: int, peaks: list[float]) -> None:
    """Sample VmHWM (monotonic) until the process is a zombie or gone."""
    while (peak := peak_rss_mb(pid)) is not None:
        if peak == 0.0:  # a zombie has no memory left to report
            return
        peaks[0] = max(peaks[0], peak)
        time.sleep(0.02)


def _tracebacks(text: str) -> int:
    return text.count("Traceback (most recent call last)")


def _describe(child: Child, timeout: float) -> str:
    if child.rc is None:
        return f"killed after {timeout:g} s"
    first = next((ln for ln in child.stderr.splitlines() if "error" in ln), "")
    return f"exit {child.rc}" + (f": {first[:70]}" if first else "")


class Bench:
    """The cases, sharing a work folder, an environment and a time limit."""

    def __init__(self, work: Path, server_dir: Path, timeout: float) -> None:
        self.work = work
        self.timeout = timeout
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = str(server_dir)
        self.env["ACCLS_CACHE_DIR"] = str(work / "cache")  # no warm cache
        self.accls = [sys.executable, "-m", "accls"]

    def write(self, name: str, text: str) -> Path:
        path = self.work / name
        path.write_text(text, encoding="utf-8")
        return path

    def cli(
        self, case: str, args: list[str], refused: str = "", timeout: float = 0
    ) -> Result:
        limit = min(timeout or self.timeout, self.timeout)
        child = run_child([*self.accls, *args], self.env, limit)
        result = Result(case, child.seconds, child.cpu_s, child.peak_mb)
        result.outcome = _describe(child, limit)
        result.tracebacks = _tracebacks(child.stderr)
        if refused and refused in child.stdout:
            result.outcome += f", refused: {refused}"
        elif child.rc == 0:
            try:
                objects = json.loads(child.stdout)
                pragmas = sum(1 for o in objects if o.get("pragma"))
                result.outcome += f", {pragmas} pragma(s) of {len(objects)} loop(s)"
            except (ValueError, AttributeError):
                pass
        return result

    # ----- the analysis -------------------------------------------------------

    def statements(self, count: int) -> Result:
        path = self.write(f"loop{count}.c", long_loop(count))
        return self.cli(
            f"{count:,}-statement loop",
            ["suggest", "--format", "json", str(path)],
            "too large to analyse here",
        )

    def one_line(self) -> Result:
        path = self.write("one_line.c", one_line_loop(1_000_000))
        return self.cli(
            "1 MB one-line loop",
            ["suggest", "--format", "json", str(path)],
            "too large to analyse here",
        )

    def loops(self) -> Result:
        path = self.write("loops.c", many_loops(10_000))
        return self.cli(
            "10,000 loops, --no-validate",
            ["suggest", "--no-validate", "--format", "json", str(path)],
        )

    def bomb(self) -> Result:
        path = self.write("bomb.c", macro_bomb())
        args = ["suggest", "--format", "json", str(path)]
        result = self.cli("macro-doubling file, compile check", args)
        # What the compile check said (the compiler is a grandchild: its memory
        # is bounded by the check's own limit, and not seen here).
        result.notes.append(self._compile_note(path, args))
        return result

    def _compile_note(self, path: Path, args: list[str]) -> str:
        child = run_child([*self.accls, *args], self.env, self.timeout)
        with contextlib.suppress(ValueError, AttributeError, IndexError):
            for obj in json.loads(child.stdout):
                for check in obj.get("validation", {}).get("checks", []):
                    if check.startswith("compile:"):
                        return str(check)
        return "no compile check reported"

    # ----- files and the sandbox (item 1, 2 and 5 of issue 20) ------------------

    def in_place(self) -> Result:
        path = self.write("inplace.c", long_loop(300))
        before = path.read_bytes()

        def small_files() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

        cmd = [*self.accls, "annotate", "--no-validate", "--in-place", str(path)]
        child = run_child(cmd, self.env, self.timeout, small_files)
        after = path.read_bytes() if path.exists() else b""
        result = Result(
            "annotate --in-place, ulimit -f 8 KB",
            child.seconds,
            child.cpu_s,
            child.peak_mb,
            _describe(child, self.timeout),
        )
        result.tracebacks = _tracebacks(child.stderr)
        intact = after == before or (len(after) > len(before) and b"#pragma" in after)
        result.lost_files = 0 if intact else 1
        result.outcome += ", file intact" if intact else ", FILE LOST"
        return result

    def escape(self) -> Result:
        outside = self.work / "outside"
        outside.mkdir()
        target = outside / "escaped.txt"
        path = self.write("escape.c", escaping_program(str(target)))
        result = self.cli("verify: program writes outside", ["verify", str(path)])
        result.escapes = 1 if target.exists() else 0
        result.outcome += ", ESCAPED" if result.escapes else ", contained"
        return result

    def fifo(self) -> Result:
        path = self.work / "pipe.c"
        os.mkfifo(path)
        # Nobody writes the FIFO: a reader that opens it blocks for good.
        result = self.cli("a FIFO as input", ["suggest", str(path)], timeout=15)
        path.unlink()
        return result

    # ----- the language server ------------------------------------------------

    def _lsp(self, case: str, run: Callable[..., dict[str, Any]]) -> Result:
        start = time.perf_counter()
        found = run(self.env, self.work, self.timeout)
        result = Result(case, time.perf_counter() - start)
        result.peak_mb = found.get("peak_mb", 0.0)
        result.outcome = found["outcome"]
        result.longest_wait_s = found.get("longest_wait_s")
        result.tracebacks = found.get("tracebacks", 0)
        return result

    def big_document(self) -> Result:
        return self._lsp("LSP: 5 MB document, diagnostics", lsp_big_document)

    def busy_pair(self) -> Result:
        return self._lsp("LSP: busy document + small one", lsp_busy_pair)

    def short_length(self) -> Result:
        return self._lsp("LSP: Content-Length > body", lsp_short_length)


CASES: dict[str, Callable[[Bench], Result]] = {
    "bomb": Bench.bomb,  # first: its peak is the largest child so far
    "loop1000": lambda b: b.statements(1000),
    "loop2000": lambda b: b.statements(2000),
    "oneline": Bench.one_line,
    "loops": Bench.loops,
    "inplace": Bench.in_place,
    "escape": Bench.escape,
    "fifo": Bench.fifo,
    "lsp-big": Bench.big_document,
    "lsp-busy": Bench.busy_pair,
    "lsp-length": Bench.short_length,
}


def _table(results: list[Result]) -> str:
    rows = [f"{'case':38} {'time s':>7} {'CPU s':>7} {'peak MB':>7}  outcome"]
    for r in results:
        outcome = r.outcome + "".join(f"; {n}" for n in r.notes)
        cpu = f"{r.cpu_s:7.2f}" if r.cpu_s else f"{'-':>7}"
        rows.append(f"{r.case:38} {r.seconds:7.2f} {cpu} {r.peak_mb:7.0f}  {outcome}")
    waits = [r.longest_wait_s for r in results if r.longest_wait_s is not None]
    rows.append("")
    rows.append(f"tracebacks: {sum(r.tracebacks for r in results)}")
    rows.append(f"escapes from verify: {sum(r.escapes for r in results)}")
    rows.append(f"lost files: {sum(r.lost_files for r in results)}")
    longest = f"{max(waits):.2f} s" if waits else "not measured"
    rows.append(f"longest unanswered request while another document is busy: {longest}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), default=None)
    parser.add_argument("--timeout", type=float, default=120.0, help="per case, s")
    parser.add_argument("--server-dir", type=Path, default=ROOT / "server")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args(argv)
    names = args.only or list(CASES)
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="accls-adversarial-") as tmp:
        bench = Bench(Path(tmp), args.server_dir.resolve(), args.timeout)
        for name in names:
            print(f"... {name}", file=sys.stderr, flush=True)
            results.append(CASES[name](bench))
        shutil.rmtree(Path(tmp) / "cache", ignore_errors=True)
    print(_table(results))
    args.out.mkdir(parents=True, exist_ok=True)
    report = args.out / "adversarial.json"
    report.write_text(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    print(f"\nwritten: {report}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
