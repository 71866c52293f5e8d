"""Speed of the compile check: 100 candidate pragmas in one generated file.

    .venv/bin/python benchmarks/compile_check.py [--loops N] [--cc gcc]

Prints uncached and cached times for two cases: every candidate compiles (one
gcc run for the file, one for all pragmas), and one candidate needs repair
(so each candidate is compiled on its own, in parallel). Reports figures only.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import Clause
from accls.suggest import Dialect, Suggestion, SuggestOptions, Target, suggest_file
from accls.validation import CompilerSettings, compile_check


def generated(loops: int) -> str:
    """A C file with `loops` independent parallel loops, unique to this run."""
    parts = [f"/* run {uuid.uuid4()} */", "#include <stddef.h>", ""]
    for k in range(loops):
        parts += [
            f"void k{k}(size_t n, double *restrict a, const double *restrict b) {{",
            "    for (size_t i = 0; i < n; i++)",
            f"        a[i] = {k + 1}.0 * b[i];",
            "}",
            "",
        ]
    return "\n".join(parts)


def candidates(text: str) -> tuple[Suggestion, ...]:
    """The rule-based OpenMP CPU candidates for `text`."""
    analysis = analyze_text(text, options=AnalysisOptions(dialect="omp"))
    found = suggest_file(
        analysis, SuggestOptions(model=Dialect.OPENMP, target=Target.CPU)
    )
    return tuple(s for s in found if s.pragma is not None)


def with_bad_schedule(found: tuple[Suggestion, ...]) -> tuple[Suggestion, ...]:
    """The candidates with `schedule(bogus)` added to the first one."""
    first = found[0]
    assert first.pragma is not None
    clauses = (*first.pragma.clauses, Clause("schedule", "bogus"))
    bad = dataclasses.replace(
        first, pragma=dataclasses.replace(first.pragma, clauses=clauses)
    )
    return (bad, *found[1:])


def timed(
    text: str, path: str, found: Sequence[Suggestion], settings: CompilerSettings
) -> tuple[float, int]:
    """Seconds for one compile check, and how many candidates compiled."""
    start = time.perf_counter()
    results = compile_check(text, path, found, settings)
    elapsed = time.perf_counter() - start
    return elapsed, sum(r.compiles is True for r in results.values())


def main(argv: Sequence[str] | None = None) -> int:
    """Run both cases, uncached then cached, and print the times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loops", type=int, default=100)
    parser.add_argument("--cc", default="gcc")
    args = parser.parse_args(argv)
    print(f"{args.loops} candidates, cc={args.cc}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        settings = CompilerSettings(cc=args.cc, cache_dir=str(Path(tmp) / "cache"))
        path = str(Path(tmp) / "gen.c")
        for case, make in (
            ("all compile", lambda f: f),
            ("one repaired", with_bad_schedule),
        ):
            text = generated(args.loops)
            found = make(candidates(text))
            for run in ("uncached", "cached"):
                seconds, ok = timed(text, path, found, settings)
                print(
                    f"{case:13} {run:9} {seconds:7.3f} s  ({ok}/{len(found)} compile)"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
