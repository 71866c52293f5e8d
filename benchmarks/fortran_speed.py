"""Fortran speed: `accls suggest` on a generated 5,000-line file beside the C figure.

    .venv/bin/python benchmarks/fortran_speed.py [--runs N] [--accls PATH]

Times the same command on the C kernels file of benchmarks/speed.py and on a
Fortran module of about as many lines and loops (benchmarks/synthetic_fortran.py),
both models, and reports the ratio. Writes benchmarks/out/fortran_speed.md/.json.
Reports figures only: it never fails because something is slow.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import synthetic_c
import synthetic_fortran
from accls_path import DEFAULT_ACCLS, accls_executable
from speed import series

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    """Generate both files, time accls on each, write the report."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    c_gen = synthetic_c.kernels_file(args.size)
    f_gen = synthetic_fortran.kernels_file(args.size)
    c_path = args.out / "gen5k.c"
    f_path = args.out / "gen5k.f90"
    c_path.write_text(c_gen.text, encoding="utf-8")
    f_path.write_text(f_gen.text, encoding="utf-8")
    base = [str(args.accls), "suggest", "--format", "json"]
    rows: list[dict[str, Any]] = []
    for model in ("openacc", "openmp"):
        c_run = series(
            f"C {model}",
            [*base, "--model", model, str(c_path)],
            args.runs,
            args.timeout,
            c_gen,
        )
        f_run = series(
            f"Fortran {model}",
            [*base, "--model", model, str(f_path)],
            args.runs,
            args.timeout,
            f_gen,
        )
        ratio = f_run["median_s"] / c_run["median_s"] if c_run["median_s"] else None
        rows.append({"model": model, "c": c_run, "fortran": f_run, "ratio": ratio})
    lines = [
        "# Fortran speed",
        "",
        "| model | file | lines | loops | median s | ratio |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        for kind in ("c", "fortran"):
            run = row[kind]
            shown = f"{row['ratio']:.2f}" if kind == "fortran" and row["ratio"] else ""
            lines.append(
                f"| {row['model']} | {kind} | {run.get('lines', '')} | "
                f"{run.get('loops', '')} | {run['median_s']:.2f} | {shown} |"
            )
    report = "\n".join(lines) + "\n"
    (args.out / "fortran_speed.md").write_text(report)
    (args.out / "fortran_speed.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
