"""Precision against experts: the loops `annotate` would parallelize vs the experts'.

    .venv/bin/python benchmarks/expert_precision.py [--model openmp] [--limit N]

Every acc/omp pragma is stripped from the dev-sources files that hold expert pairs;
`accls suggest --format json` runs on the bare files. A loop counts as *chosen* when
accls gives it a pragma of its own (not an inner level, not an existing pragma) and the
cost model does not call it unprofitable: what `annotate` inserts. Precision is the
share of chosen loops that an expert annotated; recall the share of expert loops that
were chosen. A loop the expert kept on one thread (`acc loop seq`, `serial`, an
`omp simd` alone) is no expert choice: choosing it costs precision. The curve
replays the decision at other work thresholds (units of the cost model; loops of
unknown work are kept, as `annotate` keeps them), so a threshold is picked from the
data of every file at once, never per file. Writes
benchmarks/out/expert_precision.json (one row per loop, with its estimate) and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from quality import Prepared, SourceFile, load_jsonl, materialise, prepare
from quality_runs import include_dirs, parallel_map, suggest
from source_edit import pragma_blocks, sequential_loops

REPO = Path(__file__).resolve().parents[1]
THRESHOLDS = (0, 1_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000)
FITTED_CUTS = (-1.0, -0.5, -0.3, -0.2, -0.1, 0.0)


@dataclass(frozen=True, slots=True)
class Point:
    """Precision and recall of one decision rule."""

    rule: str
    chosen: int
    hits: int
    experts: int

    @property
    def precision(self) -> float:
        """Chosen loops an expert annotated, over chosen loops."""
        return self.hits / self.chosen if self.chosen else 1.0

    @property
    def recall(self) -> float:
        """Expert loops chosen, over expert loops."""
        return self.hits / self.experts if self.experts else 1.0

    def row(self) -> str:
        """One markdown table row."""
        return (
            f"| {self.rule} | {self.chosen} | {self.hits} | {self.experts} | "
            f"{self.precision:.3f} | {self.recall:.3f} |"
        )


def loop_rows(
    prep_lines: frozenset[int], file: str, objects: list[dict[str, Any]], text: str
) -> list[dict[str, Any]]:
    """A row per loop accls gave its own pragma, and per expert loop it missed."""
    lines = text.split("\n")

    def head(line: int) -> str:
        return lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""

    rows: list[dict[str, Any]] = []
    seen: set[int] = set()
    for obj in objects:
        line = obj.get("line")
        if not isinstance(line, int) or not obj.get("pragma"):
            continue
        if obj.get("inner") or obj.get("existing_pragma") or line in seen:
            continue
        seen.add(line)
        rows.append(
            {
                "file": file,
                "line": line,
                "expert": line in prep_lines,
                "profitable": obj.get("profitable"),
                "estimate": obj.get("estimate"),
                "pragma": obj.get("pragma"),
                "function": obj.get("function"),
                "head": head(line),
            }
        )
    rows += [
        {
            "file": file,
            "line": line,
            "expert": True,
            "missed": True,
            "head": head(line),
            **_why_missed(line, objects),
        }
        for line in sorted(prep_lines - seen)
    ]
    return rows


def _sequential(prep: Prepared) -> frozenset[int]:
    """Stripped-file lines of loops the expert kept on one thread (`loop seq`,
    `simd`): not an expert's choice to parallelize, so neither a hit nor a miss."""
    lines = prep.source.original.read_text(encoding="utf-8").split("\n")
    return frozenset(
        prep.stripped.map_line(i + 1)
        for i in sequential_loops(lines, pragma_blocks(lines))
    )


def _why_missed(line: int, objects: list[dict[str, Any]]) -> dict[str, Any]:
    """Why an expert loop got no pragma of its own: refused (the reasons), or other."""
    found = [o for o in objects if o.get("line") == line]
    if not found:
        return {"why": "not found", "reasons": []}
    obj = found[0]
    if obj.get("pragma"):
        return {"why": "inner level or existing pragma", "reasons": []}
    reasons = [str(r) for r in obj.get("reasons") or []]
    return {"why": f"refused: {obstacle_class(reasons)}", "reasons": reasons}


# The first pattern a loop's reasons match names its class (checked in order).
_OBSTACLES = (
    ("not analysed", ("not analysed", "too large", "syntax error", "nested too")),
    ("loop shape", ("canonical", "no bound", "break", "return", "goto", "bound ")),
    ("call", ("call", "callee", "function")),
    ("aliasing", ("may overlap", "may alias", "points to", "re-points")),
    ("induction", ("induction", "counter", "advanced")),
    (
        "scalar carried",
        ("scalar", "read before", "carried", "written under", "member", "static"),
    ),
    ("extent", ("outside", "extent")),
    ("array dependence", ("dependence", "may be shared", "overlap", "same element")),
)


def obstacle_class(reasons: list[str]) -> str:
    """The class of a refusal: the first class any of its reasons matches."""
    text = " ".join(reasons).lower()
    for name, needles in _OBSTACLES:
        if any(n in text for n in needles):
            return name
    return "other"


def breakdown(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """Expert loops by outcome: chosen, refused by cost, refused unsafe (class)."""
    counts: dict[str, int] = {}
    for row in rows:
        if not row["expert"]:
            continue
        if row.get("missed"):
            key = str(row.get("why"))
        elif row.get("profitable") is False:
            key = "refused by cost"
        else:
            key = "chosen"
        counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def curve(rows: list[dict[str, Any]]) -> list[Point]:
    """Precision and recall of every safe pragma, of `annotate`, and per threshold."""
    experts = sum(1 for r in rows if r["expert"])
    candidates = [r for r in rows if not r.get("missed")]

    def point(rule: str, keep: list[dict[str, Any]]) -> Point:
        return Point(rule, len(keep), sum(1 for r in keep if r["expert"]), experts)

    out = [
        point("every safe pragma (--all)", candidates),
        point(
            "annotate (cost model)",
            [r for r in candidates if r["profitable"] is not False],
        ),
    ]
    predicted = [r for r in candidates if _predicted(r) is not None]
    if predicted:
        for cut in FITTED_CUTS:
            keep = [r for r in candidates if (_predicted(r) or 0.0) > cut]
            out.append(point(f"fitted log2 speedup > {cut:+.2f} (every loop)", keep))
    for floor in THRESHOLDS:
        keep = [
            r
            for r in candidates
            if _units(r) is None or (_units(r) or 0) >= floor
            if not _structural(r)
        ]
        out.append(point(f"known work >= {floor} units, no other reason", keep))
    for floor in THRESHOLDS[1:]:
        keep = [
            r
            for r in candidates
            if (_filled_units(r) or 0) >= floor
            if not _structural(r)
        ]
        out.append(point(f"work with open sizes at 1000 >= {floor} units", keep))
    return out


def _filled_units(row: dict[str, Any]) -> float | None:
    """The work with every size the file leaves open at 1000 (the features')."""
    features = (row.get("estimate") or {}).get("features") or {}
    units = features.get("units")
    return float(units) if isinstance(units, int | float) else None


def _predicted(row: dict[str, Any]) -> float | None:
    value = (row.get("estimate") or {}).get("predicted_log2_speedup")
    return float(value) if isinstance(value, int | float) else None


def _units(row: dict[str, Any]) -> int | None:
    estimate = row.get("estimate") or {}
    units = estimate.get("units")
    return int(units) if isinstance(units, int) else None


def _structural(row: dict[str, Any]) -> bool:
    """Whether the cost model gives a reason no threshold overrides (all but size)."""
    why = str((row.get("estimate") or {}).get("why") or "")
    return bool(why) and not why.startswith("small loop")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--model", choices=("openmp", "openacc"), default="openmp")
    ap.add_argument("--limit", type=int, help="only the first N files")
    ap.add_argument("--jobs", type=int, default=1, help="parallel accls processes")
    ap.add_argument("--batch", type=int, default=8, help="files per accls process")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per file")
    ap.add_argument("--target", default="auto")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    ap.add_argument(
        "--weights",
        type=Path,
        help="fitted weights (accls-train perf) for accls to use: adds their curve",
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run accls on the bare files and write the curve."""
    args = parse_args(argv)
    if args.weights is not None:
        os.environ["ACCLS_PERF_WEIGHTS"] = str(args.weights.resolve())
    pairs = [
        p
        for p in load_jsonl(args.data_dir / "dev-pairs.jsonl")
        if p["model"] == args.model
    ]
    records = load_jsonl(args.data_dir / "dev-sources.jsonl")
    by_file: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pair in pairs:
        by_file.setdefault((pair["repo"], pair["path"]), []).append(pair)
    known = {(r["repo"], r["path"]) for r in records}
    keys = [k for k in by_file if k in known][: args.limit]
    args.tmp = Path(tempfile.mkdtemp(prefix="accls-precision-")).resolve()
    rows: list[dict[str, Any]] = []
    try:
        materialise(records, args.tmp)
        preps = [
            prepare(
                SourceFile(
                    repo=repo,
                    path=path,
                    original=args.tmp / repo.replace("/", "+") / path,
                    root=args.tmp / repo.replace("/", "+"),
                    pairs=tuple(by_file[(repo, path)]),
                ),
                "all",
            )
            for repo, path in keys
        ]
        batches = [
            (args.model, tuple(include_dirs(p.path, p.source.root)), [p.path])
            for p in preps
        ]
        done = parallel_map(args.jobs, lambda b: suggest(args, b), batches)
        for prep, result in zip(preps, done, strict=True):
            objects = result[prep.path]
            name = f"{prep.source.repo}:{prep.source.path}"
            if isinstance(objects, str):
                print(f"{name}: accls failed: {objects[:200]}", file=sys.stderr)
                objects = []
            rows += loop_rows(
                prep.expert_loops - _sequential(prep),
                name,
                objects,
                prep.stripped.text,
            )
    finally:
        shutil.rmtree(args.tmp, ignore_errors=True)
    points = curve(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"expert_precision-{args.model}"
    stem.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")
    safe = sum(1 for r in rows if r["expert"] and not r.get("missed"))
    experts = sum(1 for r in rows if r["expert"])
    table = [
        f"# Precision against experts ({args.model}, {len(keys)} files)",
        "",
        f"{experts} expert loops; accls proves {safe} of them safe (the recall "
        f"ceiling of any profitability rule: {safe / max(experts, 1):.3f}).",
        "",
        "| rule | chosen | expert | expert loops | precision | recall |",
        "| --- | --- | --- | --- | --- | --- |",
        *(p.row() for p in points),
        "",
        "## Expert loops by outcome",
        "",
        "| outcome | loops |",
        "| --- | --- |",
        *(f"| {name} | {n} |" for name, n in breakdown(rows)),
    ]
    stem.with_suffix(".md").write_text("\n".join(table) + "\n")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
