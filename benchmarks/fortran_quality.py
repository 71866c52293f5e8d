"""Fortran quality: strip the experts' `!$acc`/`!$omp` lines, re-suggest, compare.

    .venv/bin/python benchmarks/fortran_quality.py [--src DIR] [--limit N] [--jobs N]

DIR is a materialised Fortran set (`../shared/tools/materialize.py DIR fortran`);
without it the set is materialised into a temporary folder. Writes
benchmarks/out/fortran_quality.md and .json: recall of the experts' loops,
directive match, clause Jaccard (quality_metrics, as for C), the compile pass of
the annotated files (gfortran), and `accls check`'s error findings on the
experts' own files.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from accls.analysis.checks import check_file
from accls.frontend import parse_source
from accls.frontend.fortran_directives import canonical_text
from accls.settings import Settings
from accls.suggest import Dialect, Target
from accls.suggest.annotate import annotate_text
from quality_metrics import PairScore, aggregate, score_pair

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent.parent / "shared"
_SENTINEL = re.compile(r"^\s*[!cC*]\$(acc|omp)", re.IGNORECASE)
_FORTRAN = (".f90", ".F90", ".f", ".F", ".f95", ".F95", ".f03", ".f08")


_LOOP_WORDS = frozenset({"loop", "do", "simd", "distribute", "taskloop"})


def stripped(text: str, mode: str = "all") -> str:
    """Directive lines (and continuations) blank, line numbers kept.

    `all`: every directive; `loop`: only loop directives and their `end` lines,
    so that the experts' data and compute regions stay around the loops.
    """
    lines = text.split("\n")
    out = list(lines)
    row = 0
    while row < len(lines):
        if not _SENTINEL.match(lines[row]):
            row += 1
            continue
        group = [row]
        while lines[group[-1]].split("!", 2)[-1].rstrip().endswith("&") and (
            group[-1] + 1 < len(lines)
        ):
            group.append(group[-1] + 1)
        match = _SENTINEL.match(lines[row])
        assert match is not None
        words = lines[row][match.end() :].lower().replace("&", " ").split()
        words = words[1:] if words[:1] == ["end"] else words
        if mode == "all" or _LOOP_WORDS & set(words):
            for blank in group:
                out[blank] = ""
        row = group[-1] + 1
    return "\n".join(out)


def _canonical(fortran: str) -> str:
    match = _SENTINEL.match(fortran)
    if match is None:
        return fortran
    return canonical_text(match.group(1), fortran[match.end() :].replace("&", " "))


def _gfortran(path: Path, model: str) -> bool | None:
    compiler = shutil.which("gfortran")
    if compiler is None:
        return None
    flag = "-fopenacc" if model == "openacc" else "-fopenmp"
    done = subprocess.run(
        [
            compiler,
            "-fsyntax-only",
            flag,
            "-cpp",
            "-ffree-line-length-none",
            f"-I{path.parent}",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=path.parent,
    )
    return done.returncode == 0


def _settings(model: str, target: str) -> Settings:
    dialect = Dialect.OPENACC if model == "openacc" else Dialect.OPENMP
    return Settings(dialect=dialect, target=Target(target))


# The validation suite's tests INCLUDE a header the data set does not carry; this
# stand-in declares the names they use, so that their files compile at all.
_SUITE_HEADER = "acc_testsuite.Fh"
_SUITE_STUB = """\
        INTEGER, PARAMETER :: LOOPCOUNT = 1024
        REAL(8), PARAMETER :: PRECISION = 1e-8
        INTEGER, PARAMETER :: NUM_TEST_CALLS = 1
        INTEGER :: SEEDDIM(33)
"""


def _stub_headers(path: Path, text: str) -> None:
    header = path.parent / _SUITE_HEADER
    if _SUITE_HEADER in text and not header.exists():
        header.write_text(_SUITE_STUB, encoding="utf-8")


def score_file(path_text: str, mode: str = "all") -> dict[str, Any]:
    """Pairs, scores, the compile pass and the check findings of one file."""
    from accls.pipeline import suggest_text

    path = Path(path_text)
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    _stub_headers(path, text)
    original = parse_source(text, str(path))
    pairs: list[tuple[int, str, str, str]] = []  # line, model, target, expert (C)
    for loop in original.loops():
        own = [d for d in loop.pragmas if d.name]
        if not own:
            continue
        directive = own[0]
        model = "openacc" if directive.dialect == "acc" else "openmp"
        target = "gpu" if model == "openacc" or "target" in directive.name else "cpu"
        pairs.append((loop.line, model, target, _canonical(directive.text)))
    result: dict[str, Any] = {"path": path_text, "scores": [], "compile": {}}
    findings = check_file(text, str(path), [str(path.parent)])
    result["errors"] = [
        {"line": f.span.line, "code": f.code, "message": f.message}
        for f in findings
        if f.level.value == "error"
    ]
    if not pairs:
        return result
    bare = stripped(text, mode)
    work = path.with_name(path.stem + ".accls_stripped" + path.suffix)
    work.write_text(bare, encoding="utf-8", errors="surrogateescape")
    try:
        for model, target in sorted({(m, t) for _, m, t, _ in pairs}):
            settings = _settings(model, target)
            found = suggest_text(bare, str(work), settings, every_loop=True)
            by_line = {s.loop.line: s for s in found.suggestions}
            folded = {
                inner.line
                for s in found.suggestions
                for inner in s.loop.walk()
                if inner.id in s.collapsed
            }
            for line, m, t, expert in pairs:
                if (m, t) != (model, target):
                    continue
                base = {
                    "id": f"{path.name}:{line}",
                    "repo": path.parts[-3] if len(path.parts) > 3 else "",
                    "model": m,
                    "expert": expert,
                    "loop_head": bare.split("\n")[line - 1].strip(),
                }
                s = by_line.get(line)
                if s is None:
                    status = "collapsed" if line in folded else "unmatched"
                    result["scores"].append(score_pair(base, status, None).to_json())
                    continue
                checked = found.validation.get(s.loop.id)
                withdrawn = checked is not None and checked.compiles is False
                pragma = (
                    s.pragma.render()
                    if s.pragma is not None and not withdrawn
                    else None
                )
                answer = {
                    "pragma": _canonical(pragma) if pragma else None,
                    "reasons": list(s.reasons),
                    "existing_pragma": s.existing,
                }
                if line in folded and pragma is None:
                    # Folded into the enclosing loop's `collapse`: counted as C's
                    # quality benchmark counts it (no pragma of its own to score).
                    result["scores"].append(
                        score_pair(base, "collapsed", None).to_json()
                    )
                    continue
                result["scores"].append(score_pair(base, "suggested", answer).to_json())
            offered = tuple(
                s
                for s in found.suggestions
                if s.pragma is not None
                and not (
                    (v := found.validation.get(s.loop.id)) is not None
                    and v.compiles is False
                )
            )
            baseline = _gfortran(work, model)
            annotated = work.with_name(path.stem + ".accls_annotated" + path.suffix)
            annotated.write_text(annotate_text(bare, offered), encoding="utf-8")
            result["compile"][model] = {
                "baseline": baseline,
                "annotated": _gfortran(annotated, model) if offered else None,
                "pragmas": len(offered),
            }
            annotated.unlink()
    finally:
        work.unlink()
    return result


def _summary(files: list[dict[str, Any]]) -> dict[str, Any]:
    scores = [
        PairScore(**{k: tuple(v) if isinstance(v, list) else v for k, v in s.items()})
        for f in files
        for s in f["scores"]
    ]
    compiled = [
        c
        for f in files
        for c in f["compile"].values()
        if c["baseline"] and c["annotated"] is not None
    ]
    errors = [dict(e, path=f["path"]) for f in files for e in f["errors"]]
    return {
        "files": len(files),
        "overall": aggregate(scores),
        "by_model": {
            m: aggregate([s for s in scores if s.model == m])
            for m in ("openacc", "openmp")
        },
        "compile_pass": (
            sum(bool(c["annotated"]) for c in compiled) / len(compiled)
            if compiled
            else None
        ),
        "compiled_files": len(compiled),
        "compile_failures": [
            f["path"]
            for f in files
            for c in f["compile"].values()
            if c["baseline"] and c["annotated"] is False
        ],
        "check_errors": len(errors),
        "check_error_list": errors,
    }


def render(summary: dict[str, Any]) -> str:
    """The report as Markdown."""
    lines = [f"# Fortran quality (dev-fortran, strip {summary['strip']})", ""]
    lines.append(f"files: {summary['files']}")
    for name, block in (("all", summary["overall"]), *summary["by_model"].items()):
        lines.append("")
        lines.append(f"## {name}")
        for key in (
            "pairs",
            "expert_parallel",
            "suggested",
            "refused",
            "unmatched",
            "collapsed",
            "recall_parallel",
            "directive_match",
            "family_match",
            "jaccard_names",
            "jaccard_items",
            "exact",
            "suspicious",
        ):
            value = block.get(key)
            shown = f"{value:.3f}" if isinstance(value, float) else str(value)
            lines.append(f"- {key}: {shown}")
    lines += [
        "",
        "## compile",
        f"- annotated files compiled: {summary['compiled_files']}",
        f"- compile pass: {summary['compile_pass']}",
    ]
    lines += [f"  - fails: {p}" for p in summary["compile_failures"]]
    lines += [
        "",
        "## accls check on the experts' files",
        f"- error findings: {summary['check_errors']}",
    ]
    lines += [
        f"  - {e['path']}:{e['line']} {e['code']} {e['message']}"
        for e in summary["check_error_list"][:80]
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--strip",
        choices=("all", "loop"),
        default="all",
        help="strip every directive, or only loop directives (regions stay)",
    )
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "out")
    args = parser.parse_args(argv)
    src = args.src
    if src is None:
        src = Path(tempfile.mkdtemp(prefix="accls-fortran-"))
        subprocess.run(
            [
                sys.executable,
                str(SHARED / "tools" / "materialize.py"),
                str(src),
                "fortran",
            ],
            check=True,
        )
    files = sorted(
        str(p)
        for p in src.rglob("*")
        if p.suffix in _FORTRAN and ".accls_" not in p.name
    )
    if args.limit:
        files = files[: args.limit]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(score_file, files, [args.strip] * len(files)))
    summary = _summary(results) | {"strip": args.strip}
    args.out.mkdir(parents=True, exist_ok=True)
    name = "fortran_quality" if args.strip == "all" else "fortran_quality_loop"
    (args.out / f"{name}.json").write_text(
        json.dumps({"summary": summary, "files": results}, indent=1) + "\n"
    )
    (args.out / f"{name}.md").write_text(render(summary))
    print(render(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
