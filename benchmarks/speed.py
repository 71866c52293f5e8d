"""Speed benchmark: time `accls suggest` end to end on generated C files.

    .venv/bin/python benchmarks/speed.py [--size LINES] [--runs N]
    .venv/bin/python benchmarks/speed.py --profile

Writes benchmarks/out/speed.md and speed.json; see benchmarks/README.md.
Reports figures only: it never fails because something is slow.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import math
import os
import pstats
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from synthetic_c import Generated, deep_file, kernels_file

REPO = Path(__file__).resolve().parents[1]
TINY = (
    "void f(int n, double *restrict a) {\n    for (int i = 0; i < n; i++)\n"
    "        a[i] = 2.0 * a[i];\n}\n"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One timed subprocess run."""

    seconds: float
    max_rss_mib: float
    rc: int
    timed_out: bool
    objects: int | None  # suggestion objects printed; None when not a JSON array
    pragmas: int | None  # objects with a non-null pragma
    stderr_tail: str


def run_once(cmd: list[str], timeout: float) -> Run:
    """Run `cmd`, measuring wall time and the child's own peak RSS via wait4."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        killed = threading.Event()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)

        def kill() -> None:
            # os.kill, not proc.kill: Popen.poll() would race wait4 for the status.
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    objects = pragmas = None
    try:
        parsed = json.loads(stdout)
        if isinstance(parsed, list):
            objects = len(parsed)
            pragmas = sum(1 for o in parsed if isinstance(o, dict) and o.get("pragma"))
    except ValueError:
        pass
    return Run(
        seconds=seconds,
        max_rss_mib=usage.ru_maxrss / 1024,  # Linux reports KiB
        rc=proc.returncode,
        timed_out=killed.is_set(),
        objects=objects,
        pragmas=pragmas,
        stderr_tail=stderr.strip()[-400:],
    )


def series(
    name: str, cmd: list[str], runs: int, timeout: float, gen: Generated | None
) -> dict[str, Any]:
    """Run `cmd` `runs` times and summarise; stop early after a timeout."""
    done: list[Run] = []
    for _ in range(runs):
        done.append(run_once(cmd, timeout))
        print(f"  {name}: {done[-1].seconds:.3f} s rc={done[-1].rc}", file=sys.stderr)
        if done[-1].timed_out:
            break
    times = [r.seconds for r in done]
    median = statistics.median(times)
    result: dict[str, Any] = {
        "name": name,
        "command": " ".join(cmd),
        "best_s": min(times),
        "median_s": median,
        "max_rss_mib": max(r.max_rss_mib for r in done),
        "timed_out": any(r.timed_out for r in done),
        "failed": any(r.rc != 0 and not r.timed_out for r in done),
        "runs": [asdict(r) for r in done],
    }
    if gen is not None and not result["timed_out"] and not result["failed"]:
        result |= {
            "lines": gen.lines,
            "nests": gen.nests,
            "loops": gen.loops,
            "lines_per_s": gen.lines / median,
            "loops_per_s": gen.loops / median,
        }
    return result


def probe_growth(args: argparse.Namespace, base: list[str]) -> list[dict[str, Any]]:
    """Time 1/16, 1/8 and 1/4 of the big file: slow growth or a hang?"""
    probes = []
    for fraction in (16, 8, 4):
        gen = deep_file(args.big_bytes // fraction, args.seed, args.max_depth)
        path = args.out / f"deep1m-{fraction}th.c"
        path.write_text(gen.text, encoding="utf-8")
        name = f"{path.name} (1/{fraction}: {len(gen.text)} bytes)"
        probes.append(series(name, [*base, str(path)], 1, args.timeout, gen))
    return probes


def growth_finding(probes: list[dict[str, Any]]) -> str:
    """One sentence on how time grows with size across the probes."""
    done = [p for p in probes if "lines" in p]
    if len(done) < 2:
        return "the 1/16 .. 1/4 probes of the big file did not finish either"
    first, last = done[0], done[-1]
    exponent = math.log(last["median_s"] / first["median_s"]) / math.log(
        last["lines"] / first["lines"]
    )
    full = last["median_s"] * (4 ** max(exponent, 1.0))
    return (
        f"time grows as size^{exponent:.2f} between the 1/16 and 1/4 probes "
        f"({first['median_s']:.1f} s -> {last['median_s']:.1f} s); extrapolated "
        f"to the whole file: about {full:.0f} s"
    )


def check_compiles(path: Path) -> str:
    """Empty when `gcc -fsyntax-only` accepts the generated file, else why not."""
    if shutil.which("gcc") is None:
        return "gcc not found: not checked"
    proc = subprocess.run(
        ["gcc", "-fsyntax-only", "-std=gnu11", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return "" if proc.returncode == 0 else proc.stderr.strip()[-400:]


def profile(path: Path, sort: str, top: int) -> int:
    """Run `accls.cli.main` in-process under cProfile and print the top functions."""
    try:
        from accls.cli import main as accls_main
    except ImportError as exc:
        print(f"cannot import accls.cli ({exc}); use .venv/bin/python", file=sys.stderr)
        return 2
    sink = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    profiler = cProfile.Profile()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink):
        profiler.enable()
        try:
            rc = accls_main(["suggest", "--format", "json", str(path)])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        finally:
            profiler.disable()
    print(
        f"accls.cli.main returned {rc} in {time.perf_counter() - start:.2f} s "
        f"(under the profiler)"
    )
    dump = path.with_name("speed.prof")
    profiler.dump_stats(dump)
    pstats.Stats(profiler).sort_stats(sort).print_stats(top)
    print(f"full profile: {dump} (e.g. `python -m pstats {dump}`)")
    return 0


def _rate(series: dict[str, Any], key: str) -> str:
    return f"{series[key]:.0f}" if key in series else "-"


def render_markdown(report: dict[str, Any]) -> str:
    """The speed.md report."""
    gen = report["generated_file"]
    lines = [
        "# accls speed benchmark",
        "",
        f"Generated {report['generated']} at commit {report['commit']}; "
        f"{os.cpu_count()} CPUs; accls at `{report['accls']}`.",
        "",
        f"Generated file: `{gen['path']}`, {gen['lines']} lines, {gen['nests']} loop "
        f"nests, {gen['loops']} `for` statements; gcc -fsyntax-only: "
        f"{'ok' if not gen['compile_error'] else gen['compile_error']}.",
        "",
        "| run | best s | median s | lines/s | loops/s | loops/s net of start-up "
        "| peak RSS MiB | objects | "
        "pragmas | status |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in report["series"]:
        last = s["runs"][-1]
        status = "TIMEOUT" if s["timed_out"] else "FAILED" if s["failed"] else "ok"
        lines.append(
            f"| {s['name']} | {s['best_s']:.3f} | {s['median_s']:.3f} | "
            f"{_rate(s, 'lines_per_s')} | {_rate(s, 'loops_per_s')} | "
            f"{_rate(s, 'loops_per_s_net')} | "
            f"{s['max_rss_mib']:.0f} | {last['objects']} | {last['pragmas']} | "
            f"{status} |"
        )
    lines += ["", "Findings:", ""]
    lines += [f"- {f}" for f in report["findings"]] or ["- none"]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=5000, help="lines of the kernel file")
    ap.add_argument("--big-bytes", type=int, default=1 << 20)
    ap.add_argument("--max-depth", type=int, default=16, help="of the big file's nests")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-big", action="store_true")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--profile", action="store_true", help="cProfile in-process")
    ap.add_argument("--sort", default="cumulative", help="pstats sort key")
    ap.add_argument("--top", type=int, default=25)
    return ap.parse_args(argv)


def git_commit() -> str:
    """The working tree's commit, for the report header."""
    proc = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    return proc.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    """Generate the inputs, time accls on them, write the report."""
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    gen = kernels_file(args.size, args.seed)
    path = args.out / ("gen5k.c" if args.size == 5000 else f"gen{args.size}.c")
    path.write_text(gen.text, encoding="utf-8")
    if args.profile:
        return profile(path, args.sort, args.top)
    if not args.accls.exists():
        print(f"accls not found at {args.accls}", file=sys.stderr)
        return 2
    compile_error = check_compiles(path)
    tiny = args.out / "tiny.c"
    tiny.write_text(TINY, encoding="utf-8")
    base = [str(args.accls), "suggest", "--format", "json"]
    results = [
        series("start-up (1 loop)", [*base, str(tiny)], args.runs, args.timeout, None),
        series(
            f"{path.name} default model",
            [*base, str(path)],
            args.runs,
            args.timeout,
            gen,
        ),
        series(
            f"{path.name} --model openmp",
            [*base, "--model", "openmp", str(path)],
            args.runs,
            args.timeout,
            gen,
        ),
        series(
            f"{path.name} --no-validate (analysis only)",
            [*base, "--no-validate", str(path)],
            args.runs,
            args.timeout,
            gen,
        ),
        series(
            f"{path.name} --model openmp --no-validate",
            [*base, "--model", "openmp", "--no-validate", str(path)],
            args.runs,
            args.timeout,
            gen,
        ),
    ]
    findings: list[str] = []
    if not args.skip_big:
        big = deep_file(args.big_bytes, args.seed, args.max_depth)
        big_path = args.out / "deep1m.c"
        big_path.write_text(big.text, encoding="utf-8")
        name = f"{big_path.name} ({len(big.text)} bytes, deep nests)"
        results.append(series(name, [*base, str(big_path)], 1, args.timeout, big))
        if results[-1]["timed_out"]:
            results += probe_growth(args, base)
            findings.append(growth_finding(results[-3:]))
    findings += [
        f"{s['name']}: timed out after {args.timeout:.0f} s"
        for s in results
        if s["timed_out"]
    ] + [
        f"{s['name']}: exit {s['runs'][-1]['rc']}: {s['runs'][-1]['stderr_tail']}"
        for s in results
        if s["failed"]
    ]
    if compile_error:
        findings.append(f"generated file does not compile: {compile_error}")
    startup = results[0]["median_s"]
    for s in results[1:]:
        if "loops" in s and s["median_s"] > startup:
            s["loops_per_s_net"] = s["loops"] / (s["median_s"] - startup)
    report = {
        "generated": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": git_commit(),
        "accls": str(args.accls),
        "generated_file": {
            "path": str(path.relative_to(REPO))
            if path.is_relative_to(REPO)
            else str(path),
            "lines": gen.lines,
            "nests": gen.nests,
            "loops": gen.loops,
            "compile_error": compile_error,
        },
        "series": results,
        "findings": findings,
    }
    (args.out / "speed.json").write_text(json.dumps(report, indent=1) + "\n")
    markdown = render_markdown(report)
    (args.out / "speed.md").write_text(markdown)
    print(markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
