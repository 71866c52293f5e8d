"""Differential benchmark: do annotated random programs print what the serial ones do?

    .venv/bin/python benchmarks/differential.py --count N --seed S [--jobs J]

Generates N seeded C programs (tests/differential), runs each through the oracle
(serial gcc -O1 reference; accls-annotated OpenMP at 1, 2, 4 threads, with
--rewrite-inductions, --target gpu and OpenACC on the host, ThreadSanitizer +
Archer at 2 and 4 threads) and writes
benchmarks/out/differential.md and .json, plus every failing program (shrunk with
--shrink) under benchmarks/out/differential/. Reports figures; never asserts.
"""

from __future__ import annotations

import argparse
import collections
import json
import signal
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from differential.generate import generate  # noqa: E402
from differential.oracle import Outcome, find_tools  # noqa: E402
from differential.run import run_seeds  # noqa: E402
from differential.shrink import same_failure, shrink  # noqa: E402

OUT = REPO / "benchmarks" / "out"


def generator_rate(seed: int, count: int, skip: tuple[str, ...]) -> float:
    """Programs per second the generator makes on its own (text included)."""
    start = time.perf_counter()
    for s in range(seed, seed + count):
        generate(s, skip=skip).text()
    return count / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-races", action="store_true", help="skip the TSan runs")
    parser.add_argument("--shrink", action="store_true", help="shrink failures")
    parser.add_argument(
        "--skip-kernel",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out a kernel shape (counter, grid, ...), e.g. past a known bug",
    )
    parser.add_argument("--shrink-budget", type=float, default=600.0)
    args = parser.parse_args(argv)
    tools = find_tools()
    if tools is None:
        print("differential: error: gcc not found", file=sys.stderr)
        return 2
    races = not args.no_races and tools.archer is not None
    if not races and not args.no_races:
        print(
            "differential: clang or libarcher.so missing: no race runs", file=sys.stderr
        )
    rate = generator_rate(args.seed, min(args.count, 500), tuple(args.skip_kernel))
    failures = OUT / "differential"
    failures.mkdir(parents=True, exist_ok=True)
    counts: collections.Counter[str] = collections.Counter()
    dropped: collections.Counter[str] = collections.Counter()
    loops = parallel = 0
    found: list[dict[str, object]] = []
    start = time.perf_counter()
    seeds = range(args.seed, args.seed + args.count)
    done = 0
    # Ctrl-C or `kill` (a background job ignores SIGINT) stop early with a report.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    outcomes = run_seeds(seeds, tools, args.jobs, races, tuple(args.skip_kernel))
    try:
        for seed, outcome in outcomes:
            done += 1
            counts[outcome.status] += 1
            loops += outcome.loops
            parallel += outcome.parallel
            if outcome.status == "dropped":
                dropped[outcome.reason] += 1
            elif outcome.status != "pass":
                found.append(_record(seed, outcome, failures, args, tools))
            if done % 100 == 0 or done == args.count:
                print(
                    f"differential: {done}/{args.count} {dict(counts)} loops {loops} "
                    f"parallel {parallel} {time.perf_counter() - start:.0f}s",
                    file=sys.stderr,
                    flush=True,
                )
    except KeyboardInterrupt:
        print(f"differential: interrupted after {done} programs", file=sys.stderr)
        outcomes.close()
    wall = time.perf_counter() - start
    report = {
        "programs": done,
        "seed": args.seed,
        "jobs": args.jobs,
        "skipped_kernels": args.skip_kernel,
        "races_checked": races,
        "dropped": sum(dropped.values()),
        "dropped_why": dict(dropped),
        "loops": loops,
        "loops_parallelized": parallel,
        "passed": counts["pass"],
        "differences": counts["diff"],
        "races": counts["race"],
        "errors": counts["error"],
        "generator_programs_per_s": round(rate, 1),
        "oracle_programs_per_s": round(done / wall, 2),
        "wall_s": round(wall, 1),
        "failures": found,
    }
    (OUT / "differential.json").write_text(json.dumps(report, indent=2) + "\n")
    (OUT / "differential.md").write_text(_markdown(report))
    print(_markdown(report), end="")
    return 0


def _record(
    seed: int, outcome: Outcome, folder: Path, args: argparse.Namespace, tools: object
) -> dict[str, object]:
    program = generate(seed, skip=tuple(args.skip_kernel))
    (folder / f"seed-{seed}.c").write_text(program.text())
    entry: dict[str, object] = {
        "seed": seed,
        "status": outcome.status,
        "reason": outcome.reason,
    }
    if args.shrink and outcome.status in ("diff", "race", "error"):
        from differential.oracle import Tools

        assert isinstance(tools, Tools)
        small = shrink(program, same_failure(outcome, tools), args.shrink_budget)
        (folder / f"seed-{seed}.min.c").write_text(small.text())
        entry["shrunk_lines"] = small.text().count("\n")
    return entry


def _markdown(r: dict[str, object]) -> str:
    rows = [
        ("programs", r["programs"]),
        ("dropped", f"{r['dropped']} {r['dropped_why'] or ''}".strip()),
        ("loops", r["loops"]),
        ("loops parallelized (OpenMP)", r["loops_parallelized"]),
        ("output differences", r["differences"]),
        ("races (TSan + Archer)", r["races"] if r["races_checked"] else "not checked"),
        ("annotate or build errors", r["errors"]),
        ("generator programs/s", r["generator_programs_per_s"]),
        ("oracle programs/s", f"{r['oracle_programs_per_s']} ({r['jobs']} jobs)"),
        ("wall s", r["wall_s"]),
    ]
    lines = ["# Differential testing", "", "| figure | value |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    failures = r["failures"]
    assert isinstance(failures, list)
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- seed {f['seed']}: {f['status']}: {f['reason']}" for f in failures]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
