"""Whole applications: strip the experts' pragmas, let accls suggest, build and run.

    .venv/bin/python benchmarks/apps.py [--data DIR] [--apps NAME,...] [--quick]

Prints a recovery table (the experts' parallel loops accls proposes again) and a
run table (serial stripped build against the annotated build at 2 and 4 threads);
writes benchmarks/out/apps.md and apps.json. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from accls_path import DEFAULT_ACCLS, accls_executable
from apps_bisect import bisect, inserted_blocks
from apps_catalog import APPS, PRK, THREADS, App
from apps_recovery import (
    StrippedFile,
    judge,
    run_suggest,
    strip_file,
    tally,
)
from apps_run import annotate, build, compare, run, write_tree

REPO = Path(__file__).resolve().parents[1]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("ACCLS_DATA", "/work/shared/data")),
        help="folder with dev-apps.jsonl (default: $ACCLS_DATA or /work/shared/data)",
    )
    parser.add_argument(
        "--apps", default="", help="comma-separated names (default: all)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="one input per application"
    )
    parser.add_argument("--threads", default="2,4", help="thread counts (default 2,4)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per run")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=1e-9,
        help="relative tolerance of printed numbers (default 1e-9)",
    )
    parser.add_argument(
        "--bisect",
        action="store_true",
        help="on a mismatch, find the file and the loop responsible",
    )
    parser.add_argument("--no-run", action="store_true", help="recovery table only")
    parser.add_argument("--accls", type=accls_executable, default=DEFAULT_ACCLS)
    parser.add_argument("--keep-tmp", action="store_true", help="keep the work folder")
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    return parser.parse_args(argv)


def materialise(data: Path, dest: Path, repos: set[str]) -> None:
    """Write the records of `repos` (as `owner+name`) out as DEST/<owner+name>/<path>.

    They come from dev-apps.jsonl and dev-sources.jsonl (the Parallel Research
    Kernels live in the second).
    """
    for name in ("dev-apps.jsonl", "dev-sources.jsonl"):
        if not (data / name).is_file():
            continue
        with (data / name).open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                rec = json.loads(line)
                repo = rec["repo"].replace("/", "+")
                if repo not in repos:
                    continue
                path = dest / repo / rec["path"]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(rec["text"], encoding="utf-8")


def recovery(
    args: argparse.Namespace, app: App, data: Path, work: Path
) -> dict[str, Any]:
    """Strip, suggest, judge; leaves the stripped tree in work/stripped."""
    own = data / app.folder
    stripped = [
        strip_file(name, (own / name).read_text(encoding="utf-8"))
        for name in app.source_names(own)
    ]
    folder = write_tree(
        app, work / "stripped", {sf.file: sf.text for sf in stripped}, data
    )
    objects, error = run_suggest(
        args.accls, folder, [sf.file for sf in stripped], args.timeout * 5
    )
    outcomes, extras = judge(stripped, objects) if not error else ([], [])
    return {
        "stripped": stripped,
        "error": error,
        "pragmas_removed": sum(sf.pragmas for sf in stripped),
        "expert_loops": sum(len(sf.loops) for sf in stripped),
        "outcomes": [
            {
                "file": o.loop.file,
                "line": o.loop.line,
                "expert": o.loop.pragma,
                "status": o.status,
                "reason": o.reason,
                "ours": o.ours,
            }
            for o in outcomes
        ],
        **tally(outcomes),
        "extras": len(extras),
        "extras_in_expert_nests": sum(1 for e in extras if e["inside_expert_nest"]),
        # The cost model: pragmas `annotate` leaves out (without --all).
        "recovered_unprofitable": sum(
            1 for o in outcomes if o.status == "recovered" and o.profitable is False
        ),
        "extras_kept": sum(1 for e in extras if e.get("profitable") is not False),
        "loops_analysed": len(objects),
    }


def differential(
    args: argparse.Namespace,
    app: App,
    data: Path,
    work: Path,
    stripped: list[StrippedFile],
) -> dict[str, Any]:
    """Build serial, annotated and expert versions; run and compare."""
    args.app = app
    texts = {sf.file: sf.text for sf in stripped}
    result: dict[str, Any] = {"runs": [], "bisect": []}
    ann = write_tree(app, work / "annotated", texts, data)
    errors = [
        e
        for name in sorted(texts)
        if (e := annotate(args.accls, ann, name, args.timeout * 5))
    ]
    annotated = {name: (ann / name).read_text(encoding="utf-8") for name in texts}
    result["inserted"] = sum(
        len(inserted_blocks(texts[n], annotated[n])) for n in texts
    )
    if errors:
        result["skipped"] = errors[0]
        return result
    expert = write_tree(app, work / "expert", {}, data)
    serial = work / "stripped" / app.folder
    for label, folder in (
        ("serial", serial),
        ("annotated", ann),
        ("expert", expert),
    ):
        error = build(app, folder, args.timeout)
        if error:
            result["skipped"] = f"{label} build failed: {error}"
            return result
    threads = [int(t) for t in args.threads.split(",") if t]
    specs = app.runs[: app.quick] if args.quick else app.runs
    for spec in specs:
        row: dict[str, Any] = {"args": " ".join(spec.args)}
        started = time.monotonic()
        reference = run(serial / "prog", spec, 1, args.timeout)
        row["serial_seconds"] = round(time.monotonic() - started, 2)
        if reference.status == "timeout" or not reference.values:
            row["verdict"] = (
                "skipped: serial run timeout"
                if reference.status == "timeout"
                else f"skipped: no verification output ({reference.status})"
            )
            result["runs"].append(row)
            continue
        row["serial"] = reference.text
        if THREADS in spec.args:
            # Control: the stripped program given the largest thread count must
            # print what it prints with one, or differences are not ours.
            control, _ = compare(
                reference,
                serial / "prog",
                spec,
                max(threads),
                args.timeout,
                args.tolerance,
            )
            if control != "match":
                row["verdict"] = (
                    f"skipped: the stripped program at {max(threads)} threads: "
                    f"{control}"
                )
                del row["serial"]
                result["runs"].append(row)
                continue
        for n in threads:
            verdict, got = compare(
                reference, ann / "prog", spec, n, args.timeout, args.tolerance
            )
            row[f"annotated@{n}"] = verdict
            if verdict != "match":
                row[f"annotated@{n}_output"] = got.text
        verdict, got = compare(
            reference, expert / "prog", spec, max(threads), args.timeout, args.tolerance
        )
        row[f"expert@{max(threads)}"] = verdict
        result["runs"].append(row)
        bad = any(
            str(v).startswith(("MISMATCH", "timeout"))
            for k, v in row.items()
            if k.startswith("annotated@") and not k.endswith("_output")
        )
        if bad and args.bisect and not result["bisect"]:
            result["bisect"] = bisect(
                args, app, data, work, texts, annotated, spec, reference, threads
            )
    return result


def render(results: list[dict[str, Any]], threads: list[int]) -> str:
    """The tables, as Markdown."""
    out = [
        "## Recovery of the experts' parallel loops (accls suggest --model openmp)",
        "",
        "| app | pragmas stripped | expert loops | recovered | collapsed | refused "
        "| enclosed | missed | our extras (in expert nests) | loops analysed "
        "| recovered but left out by the cost model | extras the cost model keeps |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: |",
    ]
    reasons: Counter[str] = Counter()
    per_app_reasons: list[str] = []
    for r in results:
        rec = r["recovery"]
        if rec["error"]:
            out.append(f"| {r['app']} | failed: {rec['error']} |||||||||||")
            continue
        s = rec["statuses"]
        out.append(
            f"| {r['app']} | {rec['pragmas_removed']} | {rec['expert_loops']} "
            f"| {s.get('recovered', 0)} | {s.get('collapsed', 0)} "
            f"| {s.get('refused', 0)} | {s.get('enclosed', 0)} | {s.get('missed', 0)} "
            f"| {rec['extras']} ({rec['extras_in_expert_nests']}) "
            f"| {rec['loops_analysed']} | {rec.get('recovered_unprofitable', 0)} "
            f"| {rec.get('extras_kept', 0)} |"
        )
        reasons.update(rec["reasons"])
        for o in rec["outcomes"]:
            if o["status"] in ("refused", "missed"):
                per_app_reasons.append(
                    f"- {r['app']} {o['file']}:{o['line']} ({o['expert']}): "
                    f"{o['status']}: {o['reason']}"
                )
    out += [
        "",
        "### Why expert loops were not recovered (reason classes, all apps)",
        "",
        "| count | reason |",
        "| ---: | --- |",
    ]
    out += [f"| {n} | {reason} |" for reason, n in reasons.most_common()]
    out += ["", "### Each loop not recovered", "", *per_app_reasons]
    cols = [f"annotated@{n}" for n in threads] + [f"expert@{max(threads)}"]
    out += [
        "",
        "## Differential runs (serial stripped build = reference)",
        "",
        "| app | pragmas inserted | run | serial s | " + " | ".join(cols) + " |",
        "| --- | ---: | --- | ---: |" + " --- |" * len(cols),
    ]
    for r in results:
        diff = r.get("run")
        if diff is None:
            continue
        if "skipped" in diff:
            out.append(
                f"| {r['app']} | {diff.get('inserted', '')} | skipped: "
                f"{diff['skipped']} | |" + " |" * len(cols)
            )
            continue
        for row in diff["runs"]:
            if "serial" not in row:
                out.append(
                    f"| {r['app']} | {diff['inserted']} | `{row['args']}` | "
                    f"{row['serial_seconds']} | {row['verdict']} |"
                    + " |"
                    * (len(cols) - 1)
                )
                continue
            out.append(
                f"| {r['app']} | {diff['inserted']} | `{row['args']}` | "
                f"{row['serial_seconds']} | "
                + " | ".join(str(row.get(c, "")) for c in cols)
                + " |"
            )
        for line in diff.get("bisect", []):
            out.append(f"| {r['app']} | | bisect: {line} | |" + " |" * len(cols))
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 2 when the data or accls is missing."""
    args = parse_args(argv)
    if not (args.data / "dev-apps.jsonl").is_file():
        print(
            f"apps.py: no dev-apps.jsonl under {args.data} (use --data or ACCLS_DATA)",
            file=sys.stderr,
        )
        return 2
    if not args.accls.exists():
        print(f"apps.py: {args.accls} not found (run `make venv`)", file=sys.stderr)
        return 2
    wanted = {n.strip().lower() for n in args.apps.split(",") if n.strip()}
    known = (*APPS, *PRK)
    apps = [a for a in known if not wanted or a.name.lower() in wanted]
    if not apps:
        names = ", ".join(a.name for a in known)
        print(
            f"apps.py: no application named {args.apps!r} (known: {names})",
            file=sys.stderr,
        )
        return 2
    threads = [int(t) for t in args.threads.split(",") if t]
    tmp = Path(tempfile.mkdtemp(prefix="accls-apps-"))
    results: list[dict[str, Any]] = []
    try:
        materialise(args.data, tmp / "data", {a.folder.split("/")[0] for a in apps})
        for app in apps:
            started = time.monotonic()
            data = tmp / "data"
            if not (data / app.folder).is_dir():
                results.append(
                    {"app": app.name, "recovery": {"error": "no sources in the data"}}
                )
                continue
            work = tmp / app.name
            work.mkdir()
            print(f"== {app.name}", file=sys.stderr, flush=True)
            rec = recovery(args, app, data, work)
            entry: dict[str, Any] = {"app": app.name, "recovery": rec}
            if shutil.which(app.cc) is None:
                entry["run"] = {"skipped": f"no {app.cc}", "runs": []}
            elif not args.no_run and not rec["error"]:
                entry["run"] = differential(args, app, data, work, rec["stripped"])
            rec.pop("stripped")
            entry["seconds"] = round(time.monotonic() - started, 1)
            results.append(entry)
    finally:
        if args.keep_tmp:
            print(f"work folder: {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    report = render(results, threads)
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "apps.md").write_text(report, encoding="utf-8")
    (args.out / "apps.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
