"""Cost of reading a file as the build does: `accls suggest` with the preprocessor.

    .venv/bin/python benchmarks/translation_unit.py [--lines 5000] [--header 2000]

Generates a project header (macros and extern arrays) and a kernels file of about
`--lines` lines that includes it, then times, best of `--runs`:
`gcc -E` and `gcc -fsyntax-only` on the file, and `accls suggest --no-validate`
with and without `--no-preprocess`. Prints figures; never fails on speed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic_c import kernels_file

ROOT = Path(__file__).resolve().parents[1]


def _header(lines: int) -> str:
    out = ["#ifndef PROJ_BENCH_H", "#define PROJ_BENCH_H"]
    for k in range((lines - 3) // 2):
        out.append(f"#define PROJ_SIZE_{k} {64 + k % 7}")
        out.append(f"extern double proj_field_{k}[PROJ_SIZE_{k}][PROJ_SIZE_{k}];")
    out.append("#endif")
    return "\n".join(out) + "\n"


def _best(command: list[str], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=False, timeout=600)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    """Generate, time, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--header", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    gcc = shutil.which("gcc")
    if gcc is None:
        print("translation_unit.py: gcc not found", file=sys.stderr)
        return 2
    accls = [sys.executable, "-m", "accls", "suggest", "--no-validate"]
    with tempfile.TemporaryDirectory(prefix="accls-tu-") as tmp:
        folder = Path(tmp)
        (folder / "proj_bench.h").write_text(_header(args.header), encoding="utf-8")
        body = kernels_file(args.lines).text
        source = folder / "kernels.c"
        source.write_text('#include "proj_bench.h"\n' + body, encoding="utf-8")
        rows = [
            ("gcc -E", [gcc, "-E", str(source)]),
            ("gcc -fsyntax-only", [gcc, "-fsyntax-only", "-fopenmp", str(source)]),
            ("accls suggest --no-validate", [*accls, str(source)]),
            (
                "accls suggest --no-validate --no-preprocess",
                [*accls, "--no-preprocess", str(source)],
            ),
        ]
        lines = source.read_text(encoding="utf-8").count("\n")
        print(f"file: {lines} lines, header: {args.header} lines, best of {args.runs}")
        for name, command in rows:
            print(f"{name:45s} {_best(command, args.runs):7.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
