"""C++ quality: strip the experts' loop pragmas from the C++ dev set, suggest, compare.

    .venv/bin/python benchmarks/cpp_quality.py [--accls PATH] [--limit N] [--repo R]

The C++ dev set (`dev-cpp.jsonl`: the OpenACC validation suite's C++ tests, the
training materials' C++ labs, LULESH with its OpenMP) holds whole files, not
pairs: every acc/omp pragma directly above a `for` is an expert pair. Scoring,
stripping and the compile check (g++) are quality.py's. LULESH is also
stripped of every pragma and re-suggested, and each of its expert loops is
listed with what accls said. Writes benchmarks/out/cpp_quality.md and .json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from quality import (
    REPO,
    SourceFile,
    load_jsonl,
    materialise,
    run_mode,
    summarise,
    tools_ready,
)
from quality_report import render_summary
from source_edit import find_for, pragma_blocks

CXX = (".cpp", ".cc", ".cxx", ".C")
LULESH = "LLNL/LULESH"
# Its Makefile's serial build: `g++ -DUSE_MPI=0`, `CXXFLAGS = -O3 -fopenmp -I.`.
LULESH_FLAGS = ("-DUSE_MPI=0", "-O3", "-fopenmp", "-I.")


def lulesh_database(root: Path, names: list[str]) -> None:
    """compile_commands.json for LULESH's files and their stripped copies."""
    entries = []
    for name in names:
        stem, suffix = Path(name).stem, Path(name).suffix
        for variant in (
            name,
            f"{stem}.accls-loop{suffix}",
            f"{stem}.accls-all{suffix}",
        ):
            entries.append(
                {
                    "directory": str(root),
                    "file": str(root / variant),
                    "arguments": ["g++", *LULESH_FLAGS, "-c", variant],
                }
            )
    (root / "compile_commands.json").write_text(json.dumps(entries, indent=1))


def _statement_end(lines: list[str], start: int) -> int:
    """The 0-based last line of the `for` statement starting on line `start`."""
    depth, seen = 0, False
    for number in range(start, len(lines)):
        line = lines[number].split("//", 1)[0]
        for char in line:
            if char in "({":
                depth += 1
                seen = True
            elif char in ")}":
                depth -= 1
        if seen and depth <= 0:
            rest = "".join(lines[start : number + 1])
            if rest.rstrip().endswith(("}", ";")):
                return number
    return start


def mine_pairs(repo: str, path: str, text: str) -> list[dict[str, Any]]:
    """Every acc/omp pragma directly above a `for` loop, as a dev-pairs record."""
    lines = text.split("\n")
    out: list[dict[str, Any]] = []
    blocks = pragma_blocks(lines)
    for block in blocks:
        if block.dialect not in ("acc", "omp"):
            continue
        at = find_for(text, block.end + 1)
        if at is None or at[0] != _next_code_line(lines, block.end) + 1:
            continue
        pragma = " ".join(
            line.strip().rstrip("\\").strip() for line in lines[block.start : block.end]
        )
        end = _statement_end(lines, at[0] - 1)
        out.append(
            {
                "id": f"{repo}:{path}:{block.start + 1}",
                "repo": repo,
                "path": path,
                "line": block.start + 1,
                "model": "openacc" if block.dialect == "acc" else "openmp",
                "pragma": " ".join(pragma.split()),
                "loop": "\n".join(lines[at[0] - 1 : end + 1]),
            }
        )
    return out


def _next_code_line(lines: list[str], index: int) -> int:
    """The 0-based index of the first line at or after `index` that is code."""
    while index < len(lines):
        stripped = lines[index].strip()
        if stripped and not stripped.startswith(("//", "#pragma")):
            return index
        index += 1
    return index


def lulesh_table(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each LULESH expert loop: the expert's pragma, ours, and why not."""
    rows: list[dict[str, Any]] = []
    for pair in result["pairs"]:
        if pair["repo"] != LULESH:
            continue
        rows.append(
            {
                "id": pair["id"].split(":", 1)[1],
                "expert": pair["expert"],
                "ours": pair["ours"],
                "status": pair["status"],
                "directive_match": pair["directive_match"],
                "why_not": list(pair["reasons"][:2]) if not pair["ours"] else [],
            }
        )
    return rows


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options (quality.py's, with g++ as the compiler)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/work/shared/data"))
    ap.add_argument("--limit", type=int, help="only the first N files with pairs")
    ap.add_argument("--repo", help="only the files of this repository (LLNL/LULESH)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel accls processes")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    ap.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    ap.add_argument("--target", choices=("auto", "cpu", "gpu"), default="auto")
    ap.add_argument("--batch", type=int, default=16, help="files per accls process")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per file")
    ap.add_argument("--no-compile", dest="compile", action="store_false")
    ap.add_argument("--no-includes", dest="includes", action="store_false")
    ap.add_argument("--cc", default="g++")
    ap.add_argument("--cc-arg", action="append", default=[])
    ap.add_argument("--keep-tmp", action="store_true", help="keep the work folder")
    return ap.parse_args(argv)


def _markdown(report: dict[str, Any]) -> str:
    out = [f"# C++ quality ({report['generated']}, {report['commit']})", ""]
    for mode, result in report["modes"].items():
        overall = result["overall"]
        compiled = result["compile"]
        ok = sum(1 for c in compiled if not c.get("annotated_error"))
        base = sum(1 for c in compiled if not c.get("baseline_error"))
        kept = sum(
            1
            for c in compiled
            if not c.get("baseline_error") and not c.get("annotated_error")
        )
        out += [
            f"## strip {mode}",
            "",
            f"- pairs {overall['pairs']}, analysed {overall['analysed']}, "
            f"suggested {overall['suggested']}, refused {overall['refused']}, "
            f"unmatched {overall['unmatched']}",
            f"- recall of the experts' parallel loops: {overall['recall_parallel']}",
            f"- directive match: {overall['directive_match']}, family match: "
            f"{overall['family_match']}, exact: {overall['exact']}",
            f"- compile (g++): {ok}/{len(compiled)} annotated files compile; "
            f"{kept}/{base} of those whose stripped file compiles",
            "",
            "| repo | pairs | recall | directive match |",
            "| --- | --- | --- | --- |",
        ]
        for repo, row in result["by_repo"].items():
            out.append(
                f"| {repo} | {row['pairs']} | {row['recall_parallel']} | "
                f"{row['directive_match']} |"
            )
        out.append("")
    rows = report.get("lulesh", [])
    if rows:
        back = sum(1 for r in rows if r["ours"])
        out += [
            f"## LULESH: {back} of {len(rows)} expert pragmas come back",
            "",
            "| loop | expert | ours | why not |",
            "| --- | --- | --- | --- |",
        ]
        for row in rows:
            why = "; ".join(row["why_not"]).replace("|", "\\|")
            out.append(f"| {row['id']} | `{row['expert']}` | `{row['ours']}` | {why} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the reports."""
    args = parse_args(argv)
    if not tools_ready(args):
        return 2
    records = load_jsonl(args.data_dir / "dev-cpp.jsonl")
    # The suite's shared header (acc_testsuite.h) is in the C set, same repository.
    repos = {r["repo"] for r in records}
    have = {(r["repo"], r["path"]) for r in records}
    headers = [
        r
        for r in load_jsonl(args.data_dir / "dev-sources.jsonl")
        if r["repo"] in repos
        and str(r["path"]).endswith(".h")
        and (r["repo"], r["path"]) not in have
    ]
    args.tmp = Path(tempfile.mkdtemp(prefix="accls-cpp-quality-")).resolve()
    try:
        materialise([*records, *headers], args.tmp)
        sources: list[SourceFile] = []
        for rec in records:
            if not str(rec["path"]).endswith(CXX):
                continue
            pairs = mine_pairs(rec["repo"], rec["path"], rec["text"])
            if not pairs:
                continue
            root = args.tmp / str(rec["repo"]).replace("/", "+")
            sources.append(
                SourceFile(
                    repo=rec["repo"],
                    path=rec["path"],
                    original=root / rec["path"],
                    root=root,
                    pairs=tuple(pairs),
                )
            )
        if args.repo:
            sources = [s for s in sources if s.repo == args.repo]
        sources = sources[: args.limit]
        lulesh_files = [s.path for s in sources if s.repo == LULESH]
        if lulesh_files:
            lulesh_database(sources[0].root.parent / "LLNL+LULESH", lulesh_files)
            args.cc_arg = [*args.cc_arg, LULESH_FLAGS[0]]
        results = {"loop": summarise(run_mode(args, "loop", sources), [])}
        lulesh = [s for s in sources if s.repo == LULESH]
        if lulesh:
            results["all (LULESH)"] = summarise(run_mode(args, "all", lulesh), [])
    finally:
        if args.keep_tmp:
            print(f"work folder kept: {args.tmp}", file=sys.stderr)
        else:
            shutil.rmtree(args.tmp, ignore_errors=True)
    report: dict[str, Any] = {
        "generated": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": _commit(),
        "accls": str(args.accls),
        "modes": results,
        "lulesh": lulesh_table(results["all (LULESH)"]) if lulesh else [],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cpp_quality.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "cpp_quality.md").write_text(_markdown(report))
    # render_summary knows the two modes of quality.py: "all (LULESH)" is LULESH's.
    shown = {"all" if k.startswith("all") else k: v for k, v in results.items()}
    print(render_summary({"modes": shown}))
    print(f"report: {args.out / 'cpp_quality.md'}")
    return 0


def _commit() -> str:
    from quality import git_commit

    return git_commit()


if __name__ == "__main__":
    raise SystemExit(main())
