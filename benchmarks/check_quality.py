"""Run `accls check` over the expert-annotated dev sources and report its error rate.

    python benchmarks/check_quality.py [--root DIR] [--workers N]

Every error on an expert pragma is presumed a false positive until someone reads it;
the report lists them so they can be read.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from accls.analysis.checks import DIALECTS, check_file
from accls.analysis.pragma_scope import loop_directive
from accls.frontend import parse_source

_SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")


def _one(path: str) -> dict[str, Any]:
    """Findings and the count of parallel pragmas for one file."""
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        text = fh.read()
    include = [os.path.dirname(path)]
    try:
        source = parse_source(text, path, include)
        loops = sum(
            1
            for loop in source.loops()
            for d in DIALECTS
            if loop_directive(loop, d) is not None
        )
        found = check_file(text, path, include)
    except RecursionError:
        return {"path": path, "loops": 0, "findings": [], "failed": True}
    return {
        "path": path,
        "loops": loops,
        "failed": False,
        "findings": [
            {
                "line": f.span.line,
                "code": f.code,
                "severity": f.level.value,
                "message": f.message,
            }
            for f in found
        ],
    }


def measure(root: str, workers: int = 8) -> dict[str, Any]:
    """Check every C file under `root`; return counts and the error findings."""
    paths = sorted(
        os.path.join(d, f)
        for d, _, files in os.walk(root)
        for f in files
        if f.endswith((".c", ".h"))
    )
    with ProcessPoolExecutor(workers) as pool:
        results = list(pool.map(_one, paths, chunksize=4))
    loops = sum(r["loops"] for r in results)
    by_code: Counter[str] = Counter()
    errors: list[dict[str, Any]] = []
    for r in results:
        for f in r["findings"]:
            by_code[f"{f['code']} {f['severity']}"] += 1
            if f["severity"] == "error":
                errors.append({"path": os.path.relpath(r["path"], root), **f})
    return {
        "files": len(paths),
        "failed": sum(1 for r in results if r["failed"]),
        "parallel_pragmas": loops,
        "error_findings": len(errors),
        "error_rate_per_pragma": len(errors) / loops if loops else 0.0,
        "by_code": dict(sorted(by_code.items())),
        "errors": errors,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Materialize the dev sources, check them, and print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", help="an already materialized folder")
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = args.root
        if root is None:
            tool = os.path.join(_SHARED, "tools", "materialize.py")
            subprocess.run([sys.executable, tool, tmp], check=True, capture_output=True)
            root = tmp
        report = measure(root, args.workers)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
