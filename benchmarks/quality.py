"""Quality benchmark: strip the experts' loop pragmas, let accls suggest, compare.

    .venv/bin/python benchmarks/quality.py [--strip loop|all|both] [--limit N]

Writes benchmarks/out/quality.md and quality.json; see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from quality_metrics import PairScore, aggregate, grouped, mismatch_patterns, score_pair
from quality_report import render_markdown, render_summary
from quality_runs import (
    Batch,
    CompileJob,
    compile_check,
    include_dirs,
    parallel_map,
    suggest,
)
from source_edit import (
    Stripped,
    find_for,
    loops_right_after_pragmas,
    pragma_blocks,
    strip_blocks,
)

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceFile:
    """A materialised source file that holds expert pairs."""

    repo: str
    path: str  # relative to the repository
    original: Path
    root: Path  # the materialised repository root
    pairs: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """A source file with pragmas stripped for one mode, ready for accls."""

    source: SourceFile
    path: Path
    stripped: Stripped
    loop_of_pair: dict[str, tuple[int, int] | None]  # pair id -> (line, col) of `for`
    expert_loops: frozenset[int]  # new lines of loops an acc/omp pragma sat on
    nests: tuple[tuple[int, int], ...]  # new-line spans of the pairs' loops
    kept_loop_pragmas: int  # acc/omp pragmas still directly above a loop


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    """Records of a JSON-lines file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def materialise(sources: Iterable[dict[str, Any]], dest: Path) -> None:
    """Write sources as DEST/<owner>+<name>/<path>, like shared/tools/materialize.py."""
    for rec in sources:
        path = dest / rec["repo"].replace("/", "+") / rec["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rec["text"], encoding="utf-8")


def prepare(source: SourceFile, mode: str) -> Prepared:
    """Strip the pair pragmas (mode "loop") or every acc/omp pragma (mode "all")."""
    text = source.original.read_text(encoding="utf-8")
    lines = text.split("\n")
    blocks = pragma_blocks(lines)
    if mode == "loop":
        starts = {int(p["line"]) - 1 for p in source.pairs}
        chosen = [b for b in blocks if b.start in starts]
    else:
        chosen = [b for b in blocks if b.dialect in ("acc", "omp")]
    stripped = strip_blocks(text, chosen)
    original = source.original
    path = original.with_name(f"{original.stem}.accls-{mode}{original.suffix}")
    path.write_text(stripped.text, encoding="utf-8")
    loop_of_pair = {
        str(p["id"]): find_for(stripped.text, stripped.map_line(int(p["line"])))
        for p in source.pairs
    }
    nests = tuple(
        (at[0], at[0] + str(p["loop"]).count("\n"))
        for p in source.pairs
        if (at := loop_of_pair[str(p["id"])]) is not None
    )
    annotated = loops_right_after_pragmas(lines, blocks)
    pair_loops_old = {
        at[0] - 1
        for p in source.pairs
        if (at := find_for(text, int(p["line"]))) is not None
    }
    return Prepared(
        source=source,
        path=path,
        stripped=stripped,
        loop_of_pair=loop_of_pair,
        expert_loops=frozenset(stripped.map_line(i + 1) for i in annotated),
        nests=nests,
        kept_loop_pragmas=len(annotated - pair_loops_old) if mode == "loop" else 0,
    )


def score_file(
    prep: Prepared, runs: dict[str, list[dict[str, Any]] | str]
) -> tuple[list[PairScore], list[dict[str, Any]]]:
    """Scores for the file's pairs and its suggestions on loops no expert annotated."""
    scores: list[PairScore] = []
    for pair in prep.source.pairs:
        base: dict[str, Any] = {
            "id": pair["id"],
            "repo": pair["repo"],
            "model": pair["model"],
            "expert": pair["pragma"],
            "loop_head": str(pair["loop"]).split("\n")[0],
        }
        objects = runs[pair["model"]]
        at = prep.loop_of_pair[str(pair["id"])]
        if isinstance(objects, str):
            scores.append(score_pair(base, "failed", None))
            continue
        same_line = [o for o in objects if at is not None and o.get("line") == at[0]]
        same_line.sort(key=lambda o: o.get("column") != at[1] if at else 0)
        found = same_line[0] if same_line else None
        folding = [
            o
            for o in objects
            if at is not None and at[0] in (o.get("collapsed_lines") or [])
        ]
        # The JSON also lists a folded loop, with no pragma of its own.
        if folding and (found is None or not found.get("pragma")):
            by = folding[0].get("pragma")
            base["folded_by"] = " ".join(by.split()) if isinstance(by, str) else None
            scores.append(score_pair(base, "collapsed", None))
            continue
        if found is None and at is not None:
            base["enclosed_by"] = next(
                (
                    o["line"]
                    for o in objects
                    if isinstance(o.get("line"), int)
                    and o["line"] < at[0] <= int(o.get("end_line") or o["line"])
                ),
                None,
            )
        scores.append(score_pair(base, "suggested" if found else "unmatched", found))
    pair_lines = {at[0] for at in prep.loop_of_pair.values() if at is not None}
    extras = [
        {
            "file": f"{prep.source.repo}:{prep.source.path}",
            "line": obj.get("line"),
            "model": model,
            "pragma": obj.get("pragma"),
            "inside_expert_nest": any(a <= obj["line"] <= b for a, b in prep.nests),
        }
        for model, objects in runs.items()
        if isinstance(objects, list)
        for obj in objects
        if obj.get("pragma")
        and isinstance(obj.get("line"), int)
        and obj["line"] not in pair_lines
        and obj["line"] not in prep.expert_loops
    ]
    return scores, extras


def run_mode(
    args: argparse.Namespace, mode: str, sources: list[SourceFile]
) -> dict[str, Any]:
    """Prepare, suggest, compile and score every file for one strip mode."""
    started = time.monotonic()
    preps = [prepare(s, mode) for s in sources]
    groups: dict[tuple[str, tuple[Path, ...]], list[Path]] = {}
    for prep in preps:
        root = prep.source.root
        includes = tuple(include_dirs(prep.path, root)) if args.includes else ()
        for model in sorted({q["model"] for q in prep.source.pairs}):
            groups.setdefault((model, includes), []).append(prep.path)
    batches: list[Batch] = [
        (model, includes, paths[i : i + args.batch])
        for (model, includes), paths in groups.items()
        for i in range(0, len(paths), args.batch)
    ]
    done = parallel_map(args.jobs, lambda b: (b[0], suggest(args, b)), batches)
    runs: dict[tuple[Path, str], list[dict[str, Any]] | str] = {}
    for model, per_path in done:
        for path, objects in per_path.items():
            runs[(path, model)] = objects
    suggest_seconds = time.monotonic() - started
    scores: list[PairScore] = []
    extras: list[dict[str, Any]] = []
    for prep in preps:
        mine = {
            m: runs[(prep.path, m)] for m in {q["model"] for q in prep.source.pairs}
        }
        file_scores, file_extras = score_file(prep, mine)
        scores += file_scores
        extras += file_extras
    prep_of = {p.path: p for p in preps}
    compile_jobs = [
        CompileJob(
            f"{prep_of[path].source.repo}:{prep_of[path].source.path}",
            path,
            prep_of[path].source.root,
            model,
        )
        for (path, model), objects in runs.items()
        if isinstance(objects, list)
    ]
    compiled = (
        parallel_map(args.jobs, lambda j: compile_check(args, j), compile_jobs)
        if args.compile
        else []
    )
    failures = [
        {"file": str(path.relative_to(args.tmp)), "model": m, "error": o}
        for (path, m), o in runs.items()
        if isinstance(o, str)
    ]
    return {
        "mode": mode,
        "files": len(preps),
        "seconds": {"suggest": suggest_seconds, "total": time.monotonic() - started},
        "kept_loop_pragmas": sum(p.kept_loop_pragmas for p in preps),
        "scores": scores,
        "extras": extras,
        "compile": compiled,
        "failures": failures,
    }


def summarise(result: dict[str, Any], no_source: list[PairScore]) -> dict[str, Any]:
    """Add the aggregate metrics to a mode's raw result (JSON-ready)."""
    scores: list[PairScore] = result["scores"] + no_source
    return {
        **{k: v for k, v in result.items() if k != "scores"},
        "overall": aggregate(scores),
        "by_model": grouped(scores, "model"),
        "by_repo": grouped(scores, "repo"),
        "by_expert_directive": grouped(scores, "expert_directive"),
        "patterns": mismatch_patterns(scores),
        "unmatched": [s.id for s in scores if s.status == "unmatched"],
        "suspicious": [s.to_json() for s in scores if s.suspicious],
        "pairs": [s.to_json() for s in scores],
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--limit", type=int, help="only the first N files with pairs")
    ap.add_argument("--jobs", type=int, default=2, help="parallel accls processes")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--strip", choices=("loop", "all", "both"), default="loop")
    ap.add_argument("--target", choices=("auto", "cpu", "gpu"), default="auto")
    ap.add_argument("--batch", type=int, default=16, help="files per accls process")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per file")
    ap.add_argument("--no-compile", dest="compile", action="store_false")
    ap.add_argument(
        "--no-includes",
        dest="includes",
        action="store_false",
        help="do not pass -I folders to accls",
    )
    ap.add_argument("--cc", default="gcc")
    ap.add_argument(
        "--cc-arg", action="append", default=[], help="extra compiler argument"
    )
    ap.add_argument("--sample", type=int, default=20, help="mismatches shown")
    ap.add_argument("--seed", type=int, default=0, help="for the mismatch sample")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the work folder")
    return ap.parse_args(argv)


def tools_ready(args: argparse.Namespace) -> bool:
    """False when accls is missing; without the compiler, the compile check is off."""
    if not args.accls.exists() and shutil.which(str(args.accls)) is None:
        print(f"accls not found at {args.accls}", file=sys.stderr)
        return False
    if args.compile and shutil.which(args.cc) is None:
        print(f"{args.cc} not found: compile check skipped", file=sys.stderr)
        args.compile = False
    return True


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the reports."""
    args = parse_args(argv)
    if not tools_ready(args):
        return 2
    pairs = load_jsonl(args.data_dir / "dev-pairs.jsonl")
    records = load_jsonl(args.data_dir / "dev-sources.jsonl")
    known = {(r["repo"], r["path"]) for r in records}
    by_file: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pair in pairs:
        by_file.setdefault((pair["repo"], pair["path"]), []).append(pair)
    keys = [k for k in by_file if k in known][: args.limit]
    no_source = [
        score_pair(
            {
                "id": p["id"],
                "repo": p["repo"],
                "model": p["model"],
                "expert": p["pragma"],
                "loop_head": str(p["loop"]).split("\n")[0],
            },
            "no_source",
            None,
        )
        for p in pairs
        if (p["repo"], p["path"]) not in known and args.limit is None
    ]
    args.tmp = Path(tempfile.mkdtemp(prefix="accls-quality-")).resolve()
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
        modes = ("loop", "all") if args.strip == "both" else (args.strip,)
        results = [summarise(run_mode(args, m, sources), no_source) for m in modes]
    finally:
        if args.keep_tmp:
            print(f"work folder kept: {args.tmp}", file=sys.stderr)
        else:
            shutil.rmtree(args.tmp, ignore_errors=True)
    report = {
        "generated": time.strftime("%Y-%m-%d %H:%M:%S"),
        "accls": str(args.accls),
        "data_dir": str(args.data_dir),
        "commit": git_commit(),
        "options": {k: str(v) for k, v in vars(args).items() if k != "tmp"},
        "modes": {r["mode"]: r for r in results},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "quality.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "quality.md").write_text(
        render_markdown(report, args.sample, args.seed)
    )
    print(render_summary(report))
    print(f"report: {args.out / 'quality.md'}")
    return 0


def git_commit() -> str:
    """The working tree's commit, for the report header."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return proc.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
