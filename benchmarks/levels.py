"""Levels benchmark: recall of the experts' loops at every level of the hierarchy.

    .venv/bin/python benchmarks/levels.py [--limit N] [--accls PATH] [--no-compile]

Strips every acc/omp pragma of the dev-sources files (quality.py's "all" mode),
lets accls suggest, and scores the experts' pairs by the level they sit at:
OpenACC gang/worker/vector/seq (an outer `parallel loop` with no level word is
"auto"), OpenMP teams/parallel/simd. For each level: how many expert loops,
how many got a pragma from accls (recall), how many with the same levels
(level match; a loop our `collapse` folds has the levels of the folding
pragma) and the same directive. An expert's sequential loop (`loop seq`,
`serial`) is one `seq` row, kept when accls leaves it sequential and counted
apart from the parallel levels' totals. Also counts the experts' `acc routine`
and `omp declare target` directives and how many accls inserted back; of them,
those on a function the file defines and an expert's loop reaches (routine_reach.py:
only those can come back from loop suggestions), and how many of these came back.
Also counts the experts' data-lifetime directives (`enter data`, `exit data`,
`update`, and `present` clauses; OpenMP `target enter/exit data`, `target update`)
and how many of each `accls annotate` writes back (per file, at most the experts'
count; `lifetime_files` has each file's [expert, written] lines per kind;
`--directives-only` writes these alone, to levels-directives.json).
`--annotate-arg=--no-lifetimes` gives the numbers without lifetimes.
Writes benchmarks/out/levels.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from level_groups import mismatch_table, misses_by_reason
from quality import (
    REPO,
    SourceFile,
    load_jsonl,
    materialise,
    run_mode,
)
from quality_metrics import PairScore
from routine_reach import routine_reach
from source_edit import pragma_blocks, strip_blocks

_ACC_LEVELS = ("gang", "worker", "vector", "seq")
_ROUTINE = re.compile(r"^\s*#\s*pragma\s+(acc\s+routine|omp\s+declare\s+target)\b")
_LIFETIME = {
    "enter": re.compile(r"^\s*#\s*pragma\s+(acc|omp\s+target)\s+enter\s+data\b"),
    "exit": re.compile(r"^\s*#\s*pragma\s+(acc|omp\s+target)\s+exit\s+data\b"),
    "update": re.compile(r"^\s*#\s*pragma\s+(acc|omp\s+target)\s+update\b"),
    "present": re.compile(r"^\s*#\s*pragma\s+acc\b.*\bpresent\s*\("),
}


def levels_of(text: str | None) -> tuple[str, ...]:
    """The hierarchy levels a pragma names, in a canonical order."""
    if not text:
        return ()
    words = set(re.findall(r"[a-z_]+", text.split("(", 1)[0] + " " + text))
    if re.search(r"#\s*pragma\s+acc\b", text):
        found = tuple(w for w in _ACC_LEVELS if w in words)
        return found or ("auto",)
    out = []
    if "teams" in words or "distribute" in words:
        out.append("teams")
    if re.search(r"\bparallel\b", text) or re.search(r"\bfor\b", text):
        out.append("parallel")
    if "simd" in words:
        out.append("simd")
    return tuple(out)


def _place(directive: str) -> str:
    """OpenACC: `inner` for a bare `loop`; OpenMP: `offload` or `host`."""
    words = directive.split()
    if words[:1] == ["acc"]:
        return "inner" if words[1:] == ["loop"] else "outer"
    return "offload" if {"target", "teams", "distribute"} & set(words) else "host"


def _score_levels(scores: list[PairScore]) -> dict[str, dict[str, int]]:
    """Per expert level: loops, recalled, level match, directive match."""
    table: dict[str, Counter[str]] = {}
    for score in scores:
        # `loop seq` and `serial` ask for sequential execution: one `seq` row.
        expert = ("seq",) if score.expert_seq else levels_of(score.expert)
        # A loop our `collapse` folds runs at the levels of the folding pragma.
        ours = levels_of(score.ours if score.status == "suggested" else None)
        if score.status == "collapsed":
            ours = levels_of(score.folded_by)
        key_place = _place(score.expert_directive)
        for level in expert or ("none",):
            key = f"{score.model}:{key_place}:{level}"
            row = table.setdefault(key, Counter())
            row["loops"] += 1
            parallel = score.status in ("suggested", "collapsed") and (
                score.status == "collapsed" or score.our_parallel
            )
            # An expert's sequential loop is kept when accls leaves it so.
            row["recalled"] += parallel != score.expert_seq
            row["level_match"] += bool(ours) and level in ours
            row["same_levels"] += bool(ours) and set(ours) == set(expert)
            row["directive_match"] += score.directive_match
    return {k: dict(v) for k, v in sorted(table.items())}


def _mismatches(scores: list[PairScore]) -> dict[str, int]:
    """Recalled expert loops whose levels differ from ours, by the two level sets."""
    rows = [
        (
            f"{s.model}:{_place(s.expert_directive)}",
            levels_of(s.expert),
            levels_of(s.folded_by if s.status == "collapsed" else s.ours),
        )
        for s in scores
        if not s.expert_seq
        and (s.status == "collapsed" or (s.status == "suggested" and s.our_parallel))
    ]
    return mismatch_table(rows)


def _routines(text: str) -> int:
    return sum(1 for line in text.splitlines() if _ROUTINE.match(line))


def _lifetime_lines(text: str) -> Counter[str]:
    """Lines per data-lifetime kind: enter, exit, update, present."""
    found: Counter[str] = Counter()
    for line in text.splitlines():
        for kind, pattern in _LIFETIME.items():
            found[kind] += bool(pattern.match(line))
    return found


def _annotate_routines(
    args: argparse.Namespace, sources: list[SourceFile]
) -> tuple[dict[str, int], dict[str, dict[str, int]], dict[str, dict[str, list[int]]]]:
    """Expert routine and data-lifetime directives, and how many annotate writes.

    Also, per file, each lifetime kind's [expert, written] lines.
    """
    expert = recovered = files = 0
    reach: Counter[str] = Counter()
    lifetimes: dict[str, Counter[str]] = {k: Counter() for k in _LIFETIME}
    per_file: dict[str, dict[str, list[int]]] = {}
    for source in sources:
        text = source.original.read_text(encoding="utf-8")
        want = _routines(text)
        wanted = _lifetime_lines(text)
        if not want and not any(wanted.values()):
            continue
        model = (
            "openacc"
            if "#pragma acc" in text.replace("# pragma", "#pragma")
            else "openmp"
        )
        stripped = source.original.with_name(f"{source.original.stem}.lv.c")
        # Whole blocks, continuation lines too: a `\`-continued clause left
        # behind would be a syntax error.
        blocks = [
            b for b in pragma_blocks(text.split("\n")) if b.dialect in ("acc", "omp")
        ]
        stripped.write_text(strip_blocks(text, blocks).text)
        cmd = [str(args.accls), "annotate", "--model", model, "--target", "gpu"]
        cmd += ["--no-validate", *args.annotate_arg, str(stripped)]
        try:
            out = subprocess.run(
                cmd, capture_output=True, text=True, timeout=args.timeout
            ).stdout
        except subprocess.TimeoutExpired:
            out = ""
        if want:
            files += 1
            expert += want
            recovered += min(want, _routines(out))
            lines = [int(p["line"]) for p in source.pairs]
            reach.update(routine_reach(text, lines, out, str(source.original)))
        ours = _lifetime_lines(out)
        if any(wanted.values()) or any(ours.values()):
            per_file[f"{source.repo}:{source.path}"] = {
                k: [wanted[k], ours[k]] for k in _LIFETIME if wanted[k] or ours[k]
            }
        for kind, count in wanted.items():
            if count:
                lifetimes[kind]["files"] += 1
                lifetimes[kind]["expert"] += count
                lifetimes[kind]["recovered"] += min(count, ours[kind])
        for kind, count in ours.items():
            lifetimes[kind]["written"] += count
    routines = {"files": files, "expert": expert, "recovered": recovered, **reach}
    return routines, {k: dict(v) for k, v in lifetimes.items()}, per_file


def _print_lifetimes(lifetimes: dict[str, dict[str, int]]) -> None:
    for kind, row in lifetimes.items():
        print(
            f"data lifetime {kind:8} expert {row.get('expert', 0):4} in "
            f"{row.get('files', 0):3} files, recovered {row.get('recovered', 0):4}, "
            f"written {row.get('written', 0):4}"
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options (quality.py's, less the strip mode)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--limit", type=int)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--target", choices=("auto", "cpu", "gpu"), default="auto")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--no-compile", dest="compile", action="store_false")
    ap.add_argument("--no-includes", dest="includes", action="store_false")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--cc-arg", action="append", default=[])
    ap.add_argument("--label", default="", help="a name for this run in the report")
    ap.add_argument(
        "--directives-only",
        action="store_true",
        help="only count the routine and data-lifetime directives annotate writes",
    )
    ap.add_argument(
        "--annotate-arg",
        action="append",
        default=[],
        help="an extra argument for `accls annotate` (--annotate-arg=--no-lifetimes)",
    )
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    args = parse_args(argv)
    if not args.accls.exists() and shutil.which(str(args.accls)) is None:
        print(f"accls not found at {args.accls}", file=sys.stderr)
        return 2
    pairs = load_jsonl(args.data_dir / "dev-pairs.jsonl")
    records = load_jsonl(args.data_dir / "dev-sources.jsonl")
    known = {(r["repo"], r["path"]) for r in records}
    by_file: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pair in pairs:
        by_file.setdefault((pair["repo"], pair["path"]), []).append(pair)
    keys = [k for k in by_file if k in known][: args.limit]
    args.tmp = Path(tempfile.mkdtemp(prefix="accls-levels-")).resolve()
    try:
        materialise(records, args.tmp)
        sources = [
            SourceFile(
                repo=repo,
                path=path,
                original=args.tmp / repo.replace("/", "+") / path,
                root=args.tmp / repo.replace("/", "+"),
                pairs=tuple(by_file[(repo, path)]),
            )
            for repo, path in keys
        ]
        routines, lifetimes, lifetime_files = _annotate_routines(args, sources)
        if args.directives_only:
            print(f"routines: {routines}")
            _print_lifetimes(lifetimes)
            directives = {
                "label": args.label,
                "routines": routines,
                "lifetimes": lifetimes,
                "lifetime_files": lifetime_files,
            }
            args.out.mkdir(parents=True, exist_ok=True)
            name = f"levels-directives{'-' + args.label if args.label else ''}.json"
            (args.out / name).write_text(json.dumps(directives, indent=1) + "\n")
            return 0
        result = run_mode(args, "all", sources)
    finally:
        shutil.rmtree(args.tmp, ignore_errors=True)
    table = _score_levels(result["scores"])
    misses = misses_by_reason(result["scores"])
    compiled = [c for c in result["compile"] if not c.get("baseline_error")]
    passed = sum(
        1
        for c in compiled
        if not c.get("annotate_error") and not c.get("annotated_error")
    )
    report = {
        "label": args.label,
        "accls": str(args.accls),
        "levels": table,
        "misses": misses,
        "level_mismatches": _mismatches(result["scores"]),
        "routines": routines,
        "lifetimes": lifetimes,
        "lifetime_files": lifetime_files,
        "compile": {"files": len(compiled), "pass": passed},
        "pairs": [
            {
                "id": s.id,
                "status": s.status,
                "expert": s.expert,
                "ours": s.ours,
                "folded_by": s.folded_by,
                "loop": s.loop_head,
                "reasons": list(s.reasons),
            }
            for s in result["scores"]
        ],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"levels{'-' + args.label if args.label else ''}.json"
    (args.out / name).write_text(json.dumps(report, indent=1) + "\n")
    print(f"{'model:place:level':32} loops recall level same dir")
    for key, row in table.items():
        n = row["loops"]
        rates = [row.get(k, 0) / n for k in ("recalled", "level_match")]
        rates += [row.get(k, 0) / n for k in ("same_levels", "directive_match")]
        print(f"{key:32} {n:5} " + " ".join(f"{r:5.2f}" for r in rates))
    for model in sorted({k.split(":")[0] for k in table}):
        rows = [
            row
            for key, row in table.items()
            if key.startswith(model + ":") and not key.endswith(":seq")
        ]
        loops = sum(r["loops"] for r in rows)
        hit = sum(r.get("recalled", 0) for r in rows)
        print(f"{model} all levels: {hit}/{loops} ({hit / max(loops, 1):.3f})")
        seq = [
            row
            for key, row in table.items()
            if key.startswith(model + ":") and key.endswith(":seq")
        ]
        if seq:
            kept = sum(r.get("recalled", 0) for r in seq)
            total = sum(r["loops"] for r in seq)
            print(f"{model} expert `seq` loops left sequential: {kept}/{total}")
    for model, reasons in misses.items():
        print(f"{model} misses by reason (top 12 of {sum(reasons.values())}):")
        for why, count in list(reasons.items())[:12]:
            print(f"  {count:4}  {why}")
    mismatches = report["level_mismatches"]
    print(f"level mismatches (top 12 of {sum(mismatches.values())}):")
    for key, count in list(mismatches.items())[:12]:
        print(f"  {count:4}  {key}")
    print(f"routines: {routines}")
    _print_lifetimes(lifetimes)
    print(f"compile: {passed}/{len(compiled)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
