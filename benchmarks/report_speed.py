"""Speed of `accls report` on the whole dev-sources tree (target: under a minute).

    .venv/bin/python benchmarks/report_speed.py [--root DIR] [--jobs 2] [--runs 1]

Materializes /work/shared/data/dev-sources.jsonl into a temporary folder (or
uses --root), runs `accls report ROOT --format json` in a subprocess, and prints
the wall time, the CPU time of the run and its workers, the files, loops and
skipped files, and the machine's load. Reports figures only: it never fails
because something is slow.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
_TARGET_S = 60.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_report(root: str, jobs: int, out: Path) -> dict[str, Any]:
    """One timed `accls report` run; its figures."""
    cmd = [sys.executable, "-m", "accls", "report", root, "--format", "json"]
    cmd += ["--jobs", str(jobs), "-o", str(out)]
    cpu = _children_cpu()
    load = os.getloadavg()[0]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    data = json.loads(out.read_text(encoding="utf-8")) if proc.returncode == 0 else {}
    return {
        "rc": proc.returncode,
        "wall_s": round(wall, 2),
        "cpu_s": round(_children_cpu() - cpu, 2),
        "load_before": round(load, 2),
        "files": len(data.get("files", [])),
        "skipped": len(data.get("skipped", [])),
        "loops": sum(f["loops"] for f in data.get("files", [])),
        "graphs": len(data.get("graphs", [])),
        "findings": len(data.get("findings", [])),
        "under_target": wall < _TARGET_S,
        "stderr_tail": proc.stderr[-300:],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Materialize the dev sources, time the report, print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", help="an already materialized folder")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.root
        if root is None:
            tool = os.path.join(_SHARED, "tools", "materialize.py")
            root = os.path.join(tmp, "dev-sources")
            subprocess.run(
                [sys.executable, tool, root], check=True, capture_output=True
            )
        runs = [
            run_report(root, args.jobs, Path(tmp, "report.json"))
            for _ in range(args.runs)
        ]
    walls = sorted(r["wall_s"] for r in runs)
    summary = {
        "jobs": args.jobs,
        "cpus": os.cpu_count(),
        "target_s": _TARGET_S,
        "best_wall_s": walls[0],
        "runs": runs,
    }
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
