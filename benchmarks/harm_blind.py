"""Score a harm blind batch: does `accls annotate --all` keep every program's promise?

For each program of the batch (default tests/fixtures/harm_blind1), the serial
build is the reference; the OpenMP annotation (`--all`, so the cost model hides
no loop) is compiled with gcc -fopenmp and run at 1, 2 and 4 threads, and built
with clang -fsanitize=thread and run under Archer. A program is harmful when the
annotated build does not compile, prints something else, races, or puts a pragma
on a loop marked `/* trap: ... */`; `/* expert: parallel */` loops that got one
are recovered. Both builds use -O0: a fixture may read one past a row on purpose,
and gcc -O1 uses that undefined behaviour to change the serial program.
It reports figures and never asserts.
With `--projects` (default batch tests/fixtures/harm_blind2) each folder of the
batch is one multi-file program, annotated file by file with `--project`
(benchmarks/harm_projects.py).
Usage: `python benchmarks/harm_blind.py [--projects] [--dir DIR] [--only GLOB]
[--no-tsan]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from differential.oracle import (  # noqa: E402
    Tools,
    _build,
    _run,
    annotate,
    find_tools,
)
from support.harm_markers import markers, parallelised_rows  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from harm_projects import project_dirs, run_failure, score_project  # noqa: E402

BATCH = ROOT / "tests" / "fixtures" / "harm_blind1"
SOURCES = frozenset({".c", ".cpp", ".cc", ".cxx"})
PROJECTS = ROOT / "tests" / "fixtures" / "harm_blind2"


@dataclass(frozen=True, slots=True)
class Score:
    """One program's figures."""

    experts: int
    recovered: int
    traps_hit: tuple[str, ...]  # `line N: reason` of each trap loop given a pragma
    failure: str  # compile, output or race failure; "" when none

    @property
    def harmful(self) -> bool:
        return bool(self.traps_hit or self.failure)


def score(src: Path, work: Path, tools: Tools, tsan: bool) -> Score | str:
    """Annotate, build, run and race-check one program; a string when it is dropped."""
    prog = work / src.name
    prog.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    if _build(tools.gcc, prog, work / "serial", "-O0") is not None:
        return "serial build fails"
    ref = _run([str(work / "serial")], 20.0)
    if ref is None or ref.returncode != 0:
        return "serial run fails"
    omp = work / f"omp{src.suffix}"
    failed = annotate(prog, omp, "openmp")
    if failed is not None:
        return f"annotate fails: {failed}"
    text = omp.read_text(encoding="utf-8")
    shared = parallelised_rows(text)
    marks = markers(text)
    experts = [m for m in marks if m.kind == "expert"]
    recovered = sum(1 for m in experts if m.row in shared)
    hit = tuple(
        f"line {m.row + 1}: {m.reason}"
        for m in marks
        if m.kind == "trap" and m.row in shared
    )
    return Score(
        len(experts),
        recovered,
        hit,
        run_failure(_build, omp, work, tools, ref.stdout, tsan),
    )


def _score(
    src: Path, work: Path, tools: Tools, tsan: bool, project: bool
) -> Score | str:
    if not project:
        return score(src, work, tools, tsan)
    got = score_project(src, work, tools, tsan)
    return got if isinstance(got, str) else Score(*got)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--only", default="", help="glob of programs to score")
    parser.add_argument(
        "--projects",
        action="store_true",
        help="each folder of the batch is one multi-file program",
    )
    parser.add_argument("--no-tsan", action="store_true", help="skip the Archer runs")
    args = parser.parse_args(argv)
    tools = find_tools()
    if tools is None:
        print("gcc not found")
        return 1
    if tools.archer is None and not args.no_tsan:
        print("clang with libarcher.so not found: the race runs are skipped")
    batch = args.dir or (PROJECTS if args.projects else BATCH)
    items = (
        project_dirs(batch, args.only or "*")
        if args.projects
        else sorted(p for p in batch.glob(args.only or "*") if p.suffix in SOURCES)
    )
    harmful = experts = recovered = traps = scored = 0
    for src in items:
        with tempfile.TemporaryDirectory() as tmp:
            got = _score(src, Path(tmp), tools, not args.no_tsan, args.projects)
        if isinstance(got, str):
            print(f"{src.name:36} dropped: {got}")
            continue
        scored += 1
        harmful += got.harmful
        experts += got.experts
        recovered += got.recovered
        traps += len(got.traps_hit)
        flag = "HARM" if got.harmful else "ok"
        print(f"{src.name:36} {flag:4} expert {got.recovered}/{got.experts}")
        for why in (*got.traps_hit, got.failure):
            if why:
                print(f"    {why}")
    print(
        f"programs {scored}, harmful {harmful}, pragmas on traps {traps}, "
        f"expert loops recovered {recovered}/{experts}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
