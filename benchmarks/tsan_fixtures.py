"""Run every annotated C fixture under ThreadSanitizer with clang's OpenMP and Archer.

Each fixture of tests/fixtures/c is annotated by `accls annotate` (OpenMP, CPU),
built with `clang -fopenmp -fsanitize=thread -g -O1`, and run with Archer loaded
through OMP_TOOL_LIBRARIES on 4 threads (gcc's libgomp is not instrumented and
reports false races). The report counts TSan's race warnings per fixture (the
aim is 0) and compares the output with the serial build's. Usage:
`python benchmarks/tsan_fixtures.py [--runs N] [--jobs N] [-k SUBSTRING]
[--add-restrict]`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from tsan_races import archer_library

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "c"
OUT = ROOT / "benchmarks" / "out"
_RACE = "WARNING: ThreadSanitizer: data race"
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf", re.I)
TOLERANCE = 1e-9  # a parallel reduction sums in another order


@dataclass(frozen=True, slots=True)
class Verdict:
    """One fixture: its pragmas, TSan's race warnings, and whether outputs agree."""

    fixture: str
    pragmas: int
    races: int
    same_output: bool | None  # None when it did not build or run
    problem: str = ""


def _same(expected: str, actual: str) -> bool:
    """The same text, numbers equal within TOLERANCE (relative)."""
    if _NUMBER.sub("#", expected) != _NUMBER.sub("#", actual):
        return False
    for a, b in zip(_NUMBER.findall(expected), _NUMBER.findall(actual), strict=True):
        x, y = float(a), float(b)
        if not (math.isclose(x, y, rel_tol=TOLERANCE) or (x != x and y != y)):
            return False
    return True


def _run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str]:
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, env=env, timeout=300, check=False
        )
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"
    return done.returncode, done.stdout, done.stderr


def check_fixture(
    src: Path, work: Path, runs: int, archer: Path, extra: tuple[str, ...] = ()
) -> Verdict:
    """Annotate (with `extra` options), build serially and under TSan, run, count."""
    annotated = work / f"{src.stem}.omp.c"
    code, _, err = _run(
        [
            sys.executable,
            "-m",
            "accls",
            "annotate",
            "--model",
            "openmp",
            "--target",
            "cpu",
            *extra,
            str(src),
            "-o",
            str(annotated),
        ]
    )
    if code != 0:
        return Verdict(src.name, 0, 0, None, f"annotate failed: {err.strip()[-120:]}")
    text = annotated.read_text(encoding="utf-8")
    pragmas = text.count("#pragma omp") - src.read_text().count("#pragma omp")
    serial, tsan = work / f"{src.stem}.serial", work / f"{src.stem}.tsan"
    include = f"-I{src.parent}"  # the fixtures' own headers
    for cmd in (
        ["clang", "-O1", "-w", include, str(src), "-o", str(serial), "-lm"],
        [
            "clang",
            "-fopenmp",
            "-fsanitize=thread",
            "-g",
            "-O1",
            "-w",
            include,
            str(annotated),
            "-o",
            str(tsan),
            "-lm",
        ],
    ):
        code, _, err = _run(cmd)
        if code != 0:
            return Verdict(src.name, pragmas, 0, None, f"build failed: {err[-120:]}")
    _, expected, _ = _run([str(serial)])
    env = dict(os.environ)
    env.update(
        OMP_NUM_THREADS="4",
        OMP_TOOL_LIBRARIES=str(archer),
        TSAN_OPTIONS="ignore_noninstrumented_modules=1",
    )
    races, same = 0, True
    for _ in range(runs):
        code, out, err = _run([str(tsan)], env)
        races += err.count(_RACE)
        same = same and code in (0, 66) and _same(expected, out)
    return Verdict(src.name, pragmas, races, same)


def main(argv: list[str] | None = None) -> int:
    """Print one line per fixture and a summary; 1 when a race or a difference shows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="TSan runs per fixture")
    parser.add_argument("--jobs", type=int, default=2, help="fixtures at once")
    parser.add_argument("-k", default="", help="only fixtures whose name has this")
    parser.add_argument(
        "--add-restrict",
        action="store_true",
        help="annotate with --add-restrict (the promise must hold for the callers)",
    )
    args = parser.parse_args(argv)
    extra = ("--add-restrict",) if args.add_restrict else ()
    archer = archer_library()
    if archer is None:
        print("clang with libarcher.so not found: apt-get install clang libomp-dev")
        return 2
    fixtures = [f for f in sorted(FIXTURES.glob("*.c")) if args.k in f.name]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        verdicts = list(
            pool.map(
                lambda f: check_fixture(f, Path(tmp), args.runs, archer, extra),
                fixtures,
            )
        )
    for v in verdicts:
        same = {True: "same", False: "DIFFERENT", None: "-"}[v.same_output]
        print(
            f"{v.fixture:32} pragmas {v.pragmas:3}  races {v.races:3}  "
            f"output {same:9} {v.problem}"
        )
    races = sum(v.races for v in verdicts)
    different = sum(v.same_output is False for v in verdicts)
    failed = sum(v.same_output is None for v in verdicts)
    pragmas = sum(v.pragmas for v in verdicts)
    print(
        f"{len(verdicts)} fixtures, {pragmas} pragmas, {races} race warnings, "
        f"{different} with different output, {failed} not built "
        f"({args.runs} runs each, 4 threads, archer: {archer})"
    )
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "tsan_fixtures.json").write_text(
        json.dumps([asdict(v) for v in verdicts], indent=2) + "\n", encoding="utf-8"
    )
    return 1 if races or different or failed else 0


if __name__ == "__main__":
    sys.exit(main())
