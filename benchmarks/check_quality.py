"""Run `accls check` over the expert-annotated dev sources and report its error rate.

    python benchmarks/check_quality.py [--root DIR] [--workers N]
    python benchmarks/check_quality.py --fixtures [DIR]
    python benchmarks/check_quality.py --blind [DIR]

Every error on an expert pragma is presumed a false positive until someone reads it;
the report lists them so they can be read. `--fixtures` scores the race fixtures
(tests/fixtures/races by default) file by file: a fixture is racy when its
`expect` line names an error-level race code, race-free when it says `none`;
accls calls it racy when it reports one of those codes (ACC123, a possible race, does
not count). `--blind` scores whole programs (tests/fixtures/races_blind by default)
with `/* race: yes|no */` and `/* pair: L1 L2 */` headers, by file and by pair: a
racy program's pair is found when one error-level race finding names both lines.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from accls.analysis.checks import DIALECTS, check_file
from accls.analysis.findings import CATALOG, Category, Finding, Severity
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


_EXPECT = re.compile(r"/\*\s*expect:\s*([^*]*?)\s*\*/")
_RACES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "races"
_BLIND = _RACES.parent / "races_blind"
_RACE_LINE = re.compile(r"/\*\s*race:\s*(yes|no)\s*\*/")
_PAIR_LINE = re.compile(r"/\*\s*pair:\s*(\d+)\s+(\d+)\s*\*/")
_NOT_ACCESS = frozenset({"line", "region"})  # args naming a construct, not an access
RACE_ERRORS = frozenset(
    k.code
    for k in CATALOG
    if k.category is Category.RACE and k.severity is Severity.ERROR
)
"""The codes that call a program racy: proved races."""


def _is_race_error(found: Finding) -> bool:
    """A race code at error level: a doubt demoted to a warning is no verdict."""
    return found.code in RACE_ERRORS and found.level is Severity.ERROR


def _precision_recall(tp: int, fp: int, fn: int) -> dict[str, float]:
    return {
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / (tp + fn) if tp + fn else 1.0,
    }


def fixture_scores(folder: Path = _RACES) -> dict[str, Any]:
    """File-level precision and recall of `accls check` on the race fixtures."""
    tp = fp = fn = tn = 0
    wrong: list[str] = []
    warned: list[str] = []
    skipped = 0
    for path in sorted(folder.glob("*.c")):
        text = path.read_text(encoding="utf-8")
        match = _EXPECT.search(text)
        if match is None:
            continue
        words = set(match.group(1).replace(",", " ").split())
        racy = bool(words & RACE_ERRORS)
        if not racy and words != {"none"}:
            skipped += 1  # warnings or non-race codes only: no verdict to score
            continue
        found = check_file(text, path.name)
        said = any(f.code in RACE_ERRORS for f in found)
        tp += racy and said
        fp += said and not racy
        fn += racy and not said
        tn += not racy and not said
        if racy != said:
            wrong.append(f"{path.name}: {'missed' if racy else 'false alarm'}")
        elif not racy and any(f.kind.category is Category.RACE for f in found):
            warned.append(path.name)
    return {
        "fixtures": tp + fp + fn + tn,
        "racy": tp + fn,
        "race_free": fp + tn,
        "not_scored": skipped,
        **_precision_recall(tp, fp, fn),
        "wrong": wrong,
        "race_free_with_race_warnings": warned,
    }


def finding_lines(found: Finding) -> set[int]:
    """The lines a finding names: its own and every line-valued argument."""
    lines = {found.span.line}
    for key, value in found.args:
        if key not in _NOT_ACCESS and value.isdigit():
            lines.add(int(value))
    return lines


def _cell(racy: bool, said: bool) -> str:
    """The confusion-matrix cell of one verdict."""
    if said:
        return "tp" if racy else "fp"
    return "fn" if racy else "tn"


def blind_scores(folder: Path = _BLIND) -> dict[str, Any]:
    """File-level and pair-level precision and recall on whole blind programs."""
    file_counts = Counter[str]()
    pair_counts = Counter[str]()
    wrong: list[str] = []
    for path in sorted(folder.glob("*.c")):
        text = path.read_text(encoding="utf-8")
        declared = _RACE_LINE.search(text)
        if declared is None:
            continue
        racy = declared.group(1) == "yes"
        pair = _PAIR_LINE.search(text)
        want = {int(pair.group(1)), int(pair.group(2))} if pair else set()
        errors = [f for f in check_file(text, path.name) if _is_race_error(f)]
        said = bool(errors)
        hit = racy and any(want <= finding_lines(f) for f in errors)
        file_counts[
            "tp" if racy and said else "fp" if said else "fn" if racy else "tn"
        ] += 1
        pair_counts["tp" if hit else "fp" if said else "fn" if racy else "tn"] += 1
        pair_counts["fn"] += racy and said and not hit
        if racy != said:
            wrong.append(f"{path.name}: {'missed' if racy else 'false alarm'}")
        elif racy and not hit:
            wrong.append(f"{path.name}: racy, but not the pair {sorted(want)}")
    return {
        "programs": sum(file_counts.values()),
        "racy": file_counts["tp"] + file_counts["fn"],
        "file": _precision_recall(
            file_counts["tp"], file_counts["fp"], file_counts["fn"]
        ),
        "pair": _precision_recall(
            pair_counts["tp"], pair_counts["fp"], pair_counts["fn"]
        ),
        "wrong": wrong,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Materialize the dev sources, check them, and print a JSON report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", help="an already materialized folder")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument(
        "--fixtures",
        nargs="?",
        const=str(_RACES),
        help="score the race fixtures of this folder instead",
    )
    parser.add_argument(
        "--blind",
        nargs="?",
        const=str(_BLIND),
        help="score the whole programs of this folder by file and by pair",
    )
    args = parser.parse_args(argv)
    if args.blind is not None:
        json.dump(blind_scores(Path(args.blind)), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if args.fixtures is not None:
        json.dump(fixture_scores(Path(args.fixtures)), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
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
