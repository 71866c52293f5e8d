"""Measurements for `accls-train perf`: `accls bench --per-loop --all` on real programs.

    .venv/bin/python benchmarks/perf_measure.py [--fixtures] [--kernels] [--store FILE]

`--fixtures` benches every tests/fixtures/c program; `--kernels` the Parallel Research
Kernels of the dev sources (pragmas stripped, the kernel's other files and flags on
the command line, inputs that run in well under a second). Every record goes to the
bench store (`--store`, default benchmarks/out/bench.jsonl). The machine may be
shared: prefer few repeats and small inputs, and say so in the data card (--where).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from accls_path import DEFAULT_ACCLS, accls_executable
from apps import materialise
from apps_catalog import PRK
from apps_recovery import strip_file
from apps_run import write_tree

REPO = Path(__file__).resolve().parents[1]
# Inputs for timing one loop at a time: a few tenths of a second serially.
KERNEL_ARGS = {
    "PRK-Nstream": "10 4000000 0",
    "PRK-Stencil": "10 1000",
    "PRK-Transpose": "10 1000 32",
    "PRK-DGEMM": "3 200 32",
    "PRK-Reduce": "10 1000000",
    "PRK-Sparse": "10 9 2",
    "PRK-Synch_p2p": "10 1000 1000",
    "PRK-Synch_global": "10 50000",
    "PRK-Random": "18 16 8",
    "PRK-PIC": "10 1000 100000 1 0 SINUSOIDAL",
    "PRK-Refcount": "1000000 100",
}

# What the kernels print about their speed: never compared between builds.
_TIMINGS = r"[Rr]ate|[Tt]ime|MFlops|MB/s"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--fixtures", action="store_true")
    ap.add_argument("--kernels", action="store_true")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=90.0, help="--per-loop budget, s")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per run")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--store", type=Path, default=REPO / "benchmarks/out/bench.jsonl")
    return ap.parse_args(argv)


def bench(
    args: argparse.Namespace,
    file: Path,
    extra: list[str],
    run: list[str],
    ignore: str = "",
) -> None:
    """One `accls bench` of `file`; its report goes to stderr."""
    cmd = [str(args.accls), "bench", str(file), "--all", "--per-loop"]
    cmd += ["--threads", args.threads, "--repeats", str(args.repeats)]
    cmd += ["--budget", str(args.budget), "--timeout", str(args.timeout)]
    if extra:
        cmd += ["--cflags", shlex.join(extra)]
    if ignore:
        cmd += ["--ignore", ignore]
    if run:
        cmd += ["--", *run]
    env = {**os.environ, "ACCLS_BENCH_DB": str(args.store)}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    head = proc.stdout.strip().splitlines()[:12]
    print(f"== {file.name} (exit {proc.returncode})", *head, sep="\n", file=sys.stderr)


def kernels(args: argparse.Namespace, work: Path) -> None:
    """Bench each kernel's main file, stripped, with its other files and -D flags."""
    data = work / "data"
    materialise(args.data, data, {"ParRes+Kernels"})
    for app in PRK:
        if app.name not in KERNEL_ARGS:
            continue
        own = data / app.folder
        main, *others = app.sources
        text = strip_file(main, (own / main).read_text(encoding="utf-8")).text
        folder = write_tree(app, work / app.name, {main: text}, data)
        sources = [str((folder / o).resolve()) for o in others]
        sources += [str(folder / name) for name, _ in app.generated]
        flags = [
            f"-I{(folder / f[2:]).resolve()}" if f.startswith("-I") else f
            for f in app.cflags
            if f != "-O2"
        ]
        run = [args.threads.split(",")[-1], *KERNEL_ARGS[app.name].split()]
        bench(args, folder / main, [*flags, *sources], run, _TIMINGS)


def main(argv: list[str] | None = None) -> int:
    """Bench what was asked for."""
    args = parse_args(argv)
    args.store.parent.mkdir(parents=True, exist_ok=True)
    if args.fixtures:
        for path in sorted((REPO / "tests" / "fixtures" / "c").glob("*.c")):
            bench(args, path, [], [])
    if args.kernels:
        with tempfile.TemporaryDirectory(prefix="accls-measure-") as tmp:
            kernels(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
