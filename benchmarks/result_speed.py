"""Speed of the result: serial, accls-annotated and expert builds of the dev programs.

    .venv/bin/python benchmarks/result_speed.py [--apps NAME,...] [--condition both]

For each application of apps_catalog (the dev applications and the Parallel Research
Kernels; offload variants and serial references left out): strip the experts'
pragmas, let `accls annotate` (the cost model's choice, hoisted regions, no --all)
annotate the stripped files, build the stripped (serial), annotated and original
(expert) trees, and time each at `--threads` (2), median of `--repeats` runs, on the
machine as it is ("quiet") and again while a spinning child process keeps one core
busy ("busy"). Reports the geometric mean of expert time / accls time and flags any
accls build slower than serial. Writes benchmarks/out/result_speed.md and .json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from apps import materialise
from apps_catalog import APPS, PRK, App, Run
from apps_recovery import strip_file
from apps_run import Output, build, run, same, write_tree

REPO = Path(__file__).resolve().parents[1]
SKIPPED = ("-offload", "-ref")  # GPU ports and serial references: no CPU experts
# The kernels' catalog inputs check results in milliseconds; these take about a
# second serially on a current core, so that a time says something about speed.
SPEED_ARGS = {
    "PRK-Nstream": "10 4000000 0",
    "PRK-Stencil": "10 1000",
    "PRK-Transpose": "10 2000 32",
    "PRK-DGEMM": "3 400 32",
    "PRK-Reduce": "10 4000000",
    "PRK-Sparse": "10 10 2",
    "PRK-Synch_p2p": "10 2000 2000",
    "PRK-Synch_global": "10 200000",
    "PRK-Random": "20 16 8",
    "PRK-PIC": "10 1000 400000 1 0 SINUSOIDAL",
    "PRK-Refcount": "20000000 100",
    "PRK-Branch": "10 100000 vector_go",
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--apps", default="", help="comma-separated names (default: all)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    ap.add_argument("--tolerance", type=float, default=1e-9)
    ap.add_argument("--condition", choices=("quiet", "busy", "both"), default="both")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    return ap.parse_args(argv)


def annotate_profitable(accls: Path, folder: Path, name: str, timeout: float) -> str:
    """`accls annotate` as a user runs it (the cost model decides); the error or ""."""
    cmd = [str(accls), "annotate", "--model", "openmp", "--target", "cpu"]
    cmd += ["-I", str(folder), "--in-place", name]
    try:
        proc = subprocess.run(
            cmd, cwd=folder, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return f"annotate {name}: timeout after {timeout:.0f} s"
    if proc.returncode != 0:
        return f"annotate {name}: {proc.stderr.strip()[-200:]}"
    return ""


def prepare(args: argparse.Namespace, app: App, work: Path) -> dict[str, Any]:
    """Build the serial, accls and expert trees; {label: program} or an error."""
    own = args.data_root / app.folder
    stripped = {
        name: strip_file(name, (own / name).read_text(encoding="utf-8")).text
        for name in app.source_names(own)
    }
    trees = {
        "serial": write_tree(app, work / "serial", stripped, args.data_root),
        "accls": write_tree(app, work / "accls", stripped, args.data_root),
        "expert": write_tree(app, work / "expert", {}, args.data_root),
    }
    for name in stripped:
        error = annotate_profitable(args.accls, trees["accls"], name, args.timeout * 5)
        if error:
            return {"error": error}
    for label, folder in trees.items():
        error = build(app, folder, args.timeout)
        if error:
            return {"error": f"{label} build failed: {error}"}
    inserted = sum(
        (trees["accls"] / n).read_text(encoding="utf-8").count("#pragma omp")
        for n in stripped
    )
    return {"programs": {k: v / "prog" for k, v in trees.items()}, "pragmas": inserted}


def timed(
    program: Path, spec: Run, threads: int, timeout: float
) -> tuple[float, Output]:
    """Wall seconds of one run and its output."""
    started = time.monotonic()
    out = run(program, spec, threads, timeout)
    return time.monotonic() - started, out


def measure(
    args: argparse.Namespace, programs: dict[str, Path], spec: Run
) -> dict[str, Any]:
    """Median times of the three builds at the thread count; outputs checked."""
    row: dict[str, Any] = {}
    reference: Output | None = None
    for label in ("serial", "accls", "expert"):
        # Every build gets the same thread argument (a kernel that takes one); the
        # serial build has no pragmas, so it runs on one thread all the same. A
        # stripped SPMD kernel that cannot run so is skipped, not blamed on accls.
        threads = args.threads
        walls: list[float] = []
        for _ in range(args.repeats):
            wall, out = timed(programs[label], spec, threads, args.timeout)
            # Some programs exit non-zero on purpose (XSBench's checksum of a small
            # input): the serial build's status is the one to match.
            expected = reference.status if reference is not None else out.status
            if (
                out.status in ("timeout", "")
                or out.status != expected
                or (label == "serial" and not out.values)
            ):
                row[label] = None
                row[f"{label}_note"] = out.status or "no verification output"
                if label == "serial":
                    return row
                break
            if reference is None:
                reference = out
            elif label == "accls" and not same(reference, out, args.tolerance):
                row["accls_note"] = "OUTPUT DIFFERS from serial"
            walls.append(wall)
        else:
            row[label] = statistics.median(walls)
    return row


class Spinner:
    """A child process that keeps one core busy while it lives."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "while True: pass"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        """End the child (by its own handle) and reap it."""
        self.proc.kill()
        self.proc.wait()


def geomean(values: list[float]) -> float | None:
    """The geometric mean, None for no values."""
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def render(results: list[dict[str, Any]], conditions: list[str], threads: int) -> str:
    """The Markdown report."""
    lines = [
        f"# Speed of the result ({threads} threads, median of runs)",
        "",
        f"Machine: {os.cpu_count()} cores; load at start "
        f"{os.getloadavg()[0]:.2f} (shared: other work ran beside it).",
        "",
    ]
    for cond in conditions:
        lines += [
            f"## {cond}",
            "",
            "| program | pragmas | serial s | accls s | expert s | accls speedup | "
            "expert / accls | note |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        ratios: list[float] = []
        slower: list[str] = []
        for res in results:
            if "error" in res:
                lines.append(f"| {res['app']} | | | | | | | {res['error'][:80]} |")
                continue
            row = res[cond]
            s, a, e = row.get("serial"), row.get("accls"), row.get("expert")
            notes = [str(row[k]) for k in row if k.endswith("_note")]
            speed = f"{s / a:.2f}x" if s and a else ""
            ratio = f"{e / a:.2f}" if e and a else ""
            if e and a:
                ratios.append(e / a)
            if s and a and a > s * 1.05:
                slower.append(res["app"])
                notes.append("SLOWER THAN SERIAL")
            cells = [f"{v:.3f}" if v else "-" for v in (s, a, e)]
            lines.append(
                f"| {res['app']} | {res['pragmas']} | {' | '.join(cells)} | {speed} | "
                f"{ratio} | {'; '.join(notes)} |"
            )
        mean = geomean(ratios)
        lines += [
            "",
            f"Geometric mean of expert time / accls time: "
            f"{mean:.3f} over {len(ratios)} programs."
            if mean
            else "No ratios.",
            f"Slower than serial (by more than 5%): {', '.join(slower) or 'none'}.",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Prepare, time in each condition, report."""
    args = parse_args(argv)
    wanted = {a for a in args.apps.split(",") if a}
    apps = [
        app
        for app in (*APPS, *PRK)
        if not app.name.endswith(SKIPPED) and (not wanted or app.name in wanted)
    ]
    conditions = ["quiet", "busy"] if args.condition == "both" else [args.condition]
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="accls-speed-") as tmp:
        args.data_root = Path(tmp) / "data"
        materialise(args.data, args.data_root, {a.folder.split("/")[0] for a in apps})
        prepared = []
        for app in apps:
            print(f"prepare {app.name}", file=sys.stderr, flush=True)
            prepared.append((app, prepare(args, app, Path(tmp) / app.name)))
        for app, prep in prepared:
            res: dict[str, Any] = {"app": app.name}
            if "error" in prep:
                res["error"] = prep["error"]
                results.append(res)
                continue
            res["pragmas"] = prep["pragmas"]
            spec = app.runs[0]
            if app.name in SPEED_ARGS:
                spec = Run(
                    args=(spec.args[0], *SPEED_ARGS[app.name].split()),
                    verify=spec.verify,
                    ignore_columns=spec.ignore_columns,
                )
            for cond in conditions:
                spinner = Spinner() if cond == "busy" else None
                try:
                    res[cond] = measure(args, prep["programs"], spec)
                finally:
                    if spinner is not None:
                        spinner.stop()
                print(f"{app.name} {cond}: {res[cond]}", file=sys.stderr, flush=True)
            results.append(res)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "result_speed.json").write_text(json.dumps(results, indent=1) + "\n")
    text = render(results, conditions, args.threads)
    (args.out / "result_speed.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
