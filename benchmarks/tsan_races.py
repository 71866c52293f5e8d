"""Run the concurrency fixtures under ThreadSanitizer with clang's OpenMP and Archer.

Each fixture of tests/fixtures/races with a `/* tsan: CALL */` header is compiled
with a small driver that runs CALL, under `clang -fopenmp -fsanitize=thread`, with
Archer loaded through OMP_TOOL_LIBRARIES (gcc's libgomp is not instrumented and
reports false races). The report compares TSan's verdict with the fixture's
`/* expect: ... */` codes. Whole programs with their own `main` and a
`/* race: yes|no */` header (tests/fixtures/races_blind) are compiled as they are.
Usage: `python benchmarks/tsan_races.py [--runs N] [--dir DIR] [--only GLOB]`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RACES = ROOT / "tests" / "fixtures" / "races"
_CALL = re.compile(r"/\*\s*tsan:\s*(.*?)\s*\*/")
_EXPECT = re.compile(r"/\*\s*expect:\s*([^*]*?)\s*\*/")
_RACE = re.compile(r"/\*\s*race:\s*(yes|no)\s*\*/")
_BLIND = re.compile(r"/\*\s*tsan-blind:\s*(.*?)\s*\*/", re.S)
_RACE_CODES = {
    "ACC101",
    "ACC103",
    "ACC104",
    "ACC111",
    "ACC113",
    "ACC120",
    "ACC121",
    "ACC122",
    "ACC124",
    "ACC125",
    "ACC126",
}

_DRIVER = """#include <stdlib.h>
#include "{fixture}"
int main(void) {{
  static double buf[1000];
  double result = 0.0;
  for (int i = 0; i < 1000; i++) buf[i] = (double)(i % 7) - 3.0;
  {call};
  return (int)result & 0;
}}
"""


def archer_library() -> Path | None:
    """libarcher.so next to the libraries of the clang on PATH."""
    clang = shutil.which("clang")
    if clang is None:
        return None
    resource = subprocess.run(
        [clang, "-print-resource-dir"], capture_output=True, text=True, check=False
    ).stdout.strip()
    candidates = [Path(resource).parents[1] / "libarcher.so"] if resource else []
    candidates += sorted(Path("/usr/lib").glob("llvm-*/lib/libarcher.so"))
    return next((c for c in candidates if c.is_file()), None)


def tsan_verdict(fixture: Path, call: str, work: Path, runs: int, archer: Path) -> str:
    """`race`, `clean`, or `build failed: ...` for one fixture."""
    driver = work / f"{fixture.stem}_main.c"
    binary = work / fixture.stem
    if call:
        driver.write_text(_DRIVER.format(fixture=fixture, call=call), encoding="utf-8")
    else:
        driver = fixture  # a whole program with its own `main`
    build = subprocess.run(
        [
            "clang",
            "-fopenmp",
            "-fsanitize=thread",
            "-g",
            "-O0",
            str(driver),
            "-o",
            str(binary),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if build.returncode != 0:
        return "build failed: " + build.stderr.strip().splitlines()[-1][:120]
    env = dict(os.environ)
    env.update(
        OMP_NUM_THREADS="4",
        OMP_TOOL_LIBRARIES=str(archer),
        # The longest history: TSan drops a race whose earlier access's stack it
        # cannot restore, which a thread descheduled under load makes likely.
        TSAN_OPTIONS="ignore_noninstrumented_modules=1 history_size=7",
    )
    for _ in range(runs):
        try:
            run = subprocess.run(
                [str(binary)],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "hung"  # a deadlock: the program is not conforming
        if "ThreadSanitizer: data race" in run.stderr:
            return "race"
    return "clean"


def _declared_racy(text: str) -> tuple[bool, str] | None:
    """Whether the fixture is racy, and the call that runs it ("" for `main`)."""
    race = _RACE.search(text)
    if race is not None:
        return race.group(1) == "yes", ""
    call, expect = _CALL.search(text), _EXPECT.search(text)
    if call is None or expect is None:
        return None
    words = set(expect.group(1).replace(",", " ").split())
    return bool(words & _RACE_CODES), call.group(1)


def main(argv: list[str] | None = None) -> int:
    """Print one line per fixture and a summary; 1 when a verdict disagrees."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="runs per clean verdict")
    parser.add_argument(
        "--only", default="*", help="fixture name glob, e.g. omp_teams_*"
    )
    parser.add_argument("--dir", default=str(RACES), help="the fixture folder")
    args = parser.parse_args(argv)
    archer = archer_library()
    if archer is None:
        print("clang with libarcher.so not found: apt-get install clang libomp-dev")
        return 2
    agree = disagree = blind = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in sorted(Path(args.dir).glob(f"{args.only}.c")):
            text = fixture.read_text(encoding="utf-8")
            racy_or_none = _declared_racy(text)
            if racy_or_none is None:
                continue
            racy, call = racy_or_none
            verdict = tsan_verdict(fixture, call, Path(tmp), args.runs, archer)
            ok = verdict == ("race" if racy else "clean")
            unseen = _BLIND.search(text)
            agree += ok
            blind += not ok and unseen is not None
            disagree += not ok and unseen is None
            flag = "agree" if ok else "DISAGREE"
            if not ok and unseen is not None:
                flag = "tool blind spot: " + " ".join(unseen.group(1).split())[:60]
            want = "racy" if racy else "race-free"
            print(
                f"{fixture.name:36} accls: {want:9}  tsan+archer: {verdict:6}  {flag}"
            )
    print(
        f"{agree} agree, {disagree} disagree, {blind} in Archer's blind spots "
        f"(archer: {archer})"
    )
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
