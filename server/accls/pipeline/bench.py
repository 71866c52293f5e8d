"""`accls bench`: time the serial program and the annotated one, in verify's sandbox.

The annotated program is what `accls annotate` writes (the cost model's choice, with
hoisted regions). Each build runs `repeats` times per thread count; the median wall
time is reported, and every parallel run's output is compared with the serial one, so a
time is never shown for a program that printed something else. With `per_loop`, each
candidate pragma is timed on its own, within a time budget. Measurements are appended
to a local JSONL file (like the feedback store: never sent anywhere).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from platformdirs import user_data_dir

from accls.pipeline.bench_inputs import failure_hint, files_note, input_notes
from accls.pipeline.hoisting import annotate_hoisted
from accls.pipeline.suggesting import profitable_only, suggest_text
from accls.settings import Settings
from accls.suggest import Dialect, Suggestion, Target, with_inner
from accls.suggest.annotate import annotate_text
from accls.validation.isolation import reachable_temp_dir
from accls.validation.outputs import RunOutput, compare_outputs
from accls.validation.session import RunSession, short_of_resources
from accls.validation.verify_settings import VerifySettings, check_inputs

__all__ = [
    "BenchReport",
    "BenchTiming",
    "bench_file",
    "default_store",
    "render_bench",
]

ENV_VAR = "ACCLS_BENCH_DB"

Progress = Callable[[str, int, int], None]  # (what, done, total)


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchTiming:
    """The median wall time of one build at one thread count, and its verdict."""

    label: str  # "serial", "annotated", or "loop at line N"
    threads: int | None  # None for the serial build
    wall_s: float | None  # median; None when no run finished
    runs: tuple[float, ...]
    matches: bool | None  # output equals the serial one; None for the serial build
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchReport:
    """What bench built, ran and measured."""

    file: str
    pragmas: int
    timings: tuple[BenchTiming, ...]
    notes: tuple[str, ...]
    stored: str | None = None  # where the measurements were recorded
    # Per candidate loop: its line and the cost model's estimate (with features),
    # what `accls-train perf` fits the weights to.
    loops: tuple[dict[str, object], ...] = ()


def default_store() -> Path:
    """Where measurements go: `$ACCLS_BENCH_DB`, else the user data directory."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override)
    return Path(user_data_dir("accls", appauthor=False)) / "bench.jsonl"


class _Bench:
    """One bench run's session, builds and timings."""

    def __init__(
        self,
        session: RunSession,
        path: str,
        repeats: int,
        ignore: re.Pattern[str] | None = None,
    ) -> None:
        self.session = session
        self.ignore = ignore
        self.path = os.path.abspath(path)
        self.repeats = repeats
        self.timings: list[BenchTiming] = []
        self.reference: RunOutput | None = None
        s = session.settings
        self.cc = shutil.which(s.cc) or ""
        self.includes = [f"-I{d}" for d in s.include_dirs]

    def build(self, text: str | None, name: str) -> Path | None:
        s = self.session.settings
        exe = self.session.root / name
        if text is None:
            argv = [self.cc, "-O2", "-std=gnu11", *self.includes, self.path]
            return (
                exe
                if self.session.build(
                    [*argv, *s.cflags, "-o", str(exe), "-lm"], "the original program"
                )
                else None
            )
        copy = self.session.root / f"{name}-src" / os.path.basename(self.path)
        copy.parent.mkdir()
        copy.write_text(text, encoding="utf-8", errors="surrogateescape", newline="")
        quote = ["-iquote", os.path.dirname(self.path)]
        flags = ["-O2", "-std=gnu11", "-fopenmp", *quote, *self.includes]
        argv = [self.cc, *flags, str(copy), *s.cflags, "-o", str(exe), "-lm"]
        return exe if self.session.build(argv, f"the {name} program") else None

    def time(self, exe: Path, label: str, threads: int | None) -> BenchTiming:
        walls: list[float] = []
        matches: bool | None = None if threads is None else True
        note = ""
        for k in range(self.repeats):
            output = self._compared(
                self.session.execute(exe, f"{label}-{threads or 1}-{k}", threads)
            )
            last = self.session.runs[-1]
            failed = short_of_resources(last) or self.session.failure(output)
            if failed is not None:
                note, matches = failed, None
                self.session.judge(f"UNUSABLE: {failed}")
                break
            if self.reference is None:
                self.reference = output
                self.session.judge("reference")
            else:
                tolerance = self.session.settings.tolerance
                diff = compare_outputs(self.reference, output, tolerance)
                self.session.judge("match" if diff is None else f"MISMATCH: {diff}")
                if diff is not None:
                    matches, note = False, diff
            walls.append(last.wall_s)
        timing = BenchTiming(
            label=label,
            threads=threads,
            wall_s=statistics.median(walls) if walls and not note else None,
            runs=tuple(walls),
            matches=matches,
            note=note,
        )
        self.timings.append(timing)
        return timing

    def _compared(self, output: RunOutput) -> RunOutput:
        """The output without the lines `--ignore` names (timings, rates)."""
        if self.ignore is None:
            return output
        pattern = self.ignore
        kept = [
            line
            for line in output.stdout.split(b"\n")
            if not pattern.search(line.decode("utf-8", errors="replace"))
        ]
        return replace(output, stdout=b"\n".join(kept))


def bench_file(
    path: str,
    settings: Settings,
    verify: VerifySettings,
    *,
    repeats: int = 3,
    per_loop: bool = False,
    budget_s: float = 600.0,
    every: bool = False,
    hoist: bool = True,
    progress: Progress | None = None,
    store: Path | None = None,
    record: bool = True,
    ignore: re.Pattern[str] | None = None,
) -> BenchReport:
    """Build and time `path` serially and annotated (OpenMP on a CPU)."""
    text = check_inputs(path, verify)
    settings = replace(settings, dialect=Dialect.OPENMP, target=Target.CPU)
    result = suggest_text(text, path, settings, include_dirs=verify.include_dirs)
    chosen, _ = profitable_only(result, every=every)
    tops = [s for s in chosen if s.pragma is not None and s.existing is None]
    annotated = (
        annotate_hoisted(text, path, settings, result, chosen, verify.include_dirs).text
        if hoist
        else annotate_text(text, chosen)
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(
        prefix=f"accls-bench-{os.getpid()}-", dir=reachable_temp_dir()
    ) as scratch:
        session = RunSession(verify, Path(scratch), passive=False)
        bench = _Bench(session, path, repeats, ignore)
        notes = _run(bench, text, annotated, tops, chosen, per_loop, budget_s, progress)
        notes.append(f"wall time of bench itself: {time.monotonic() - started:.1f} s")
        notes = [*session.notes, *notes]
    report = BenchReport(
        file=path,
        pragmas=sum(1 for s in tops if not s.inner),
        timings=tuple(bench.timings),
        notes=tuple(notes),
        loops=tuple(
            {"line": s.loop.line, "estimate": estimate.as_json()}
            for s in tops
            if not s.inner and (estimate := result.estimates.get(s.loop.id))
        ),
    )
    if not record:
        return report
    target = store if store is not None else default_store()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("a", encoding="utf-8") as out:
            out.write(json.dumps(_record(report, verify)) + "\n")
    except OSError as exc:
        return replace(report, notes=(*report.notes, f"not recorded: {exc}"))
    return replace(report, stored=str(target))


def _run(
    bench: _Bench,
    text: str,
    annotated: str,
    tops: Sequence[Suggestion],
    chosen: Sequence[Suggestion],
    per_loop: bool,
    budget_s: float,
    progress: Progress | None,
) -> list[str]:
    notes: list[str] = []
    if not bench.cc:
        return [f"compiler {bench.session.settings.cc!r} not found; nothing was run"]
    threads = bench.session.settings.threads
    candidates = [s for s in tops if not s.inner] if per_loop else []
    total = 1 + len(threads) + len(candidates)
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(what, done, total)

    verify = bench.session.settings
    notes += input_notes(text, verify)
    serial = bench.build(None, "serial")
    if serial is None:
        return [*notes, "the original program does not build; nothing was timed"]
    reference = bench.time(serial, "serial", None)
    step("serial")
    last = bench.session.runs[-1]
    if reference.wall_s is None:
        why = failure_hint(last, verify)
        return [*notes, f"the original program cannot be timed: {why}"]
    if written := files_note(last):
        notes.append(written)
    parallel = bench.build(annotated, "annotated")
    if parallel is None:
        return ["the annotated program does not build"]
    for count in threads:
        bench.time(parallel, "annotated", count)
        step(f"annotated, {count} threads")
    started = time.monotonic()
    longest = 0.0  # the slowest loop so far: the next one may take as long
    for k, top in enumerate(candidates):
        spent = time.monotonic() - started
        if spent + longest > budget_s:
            notes.append(
                f"budget of {budget_s:g} s reached: {k} of {len(candidates)} loops "
                f"timed on their own in {spent:.1f} s (raise it with --budget)"
            )
            break
        alone = annotate_text(text, with_inner(top, chosen))
        exe = bench.build(alone, f"loop-{top.loop.line}")
        if exe is not None:
            bench.time(exe, f"loop at line {top.loop.line}", max(threads))
        step(f"loop at line {top.loop.line}")
        longest = max(longest, time.monotonic() - started - spent)
    return notes


def _record(report: BenchReport, verify: VerifySettings) -> dict[str, object]:
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "file": os.path.abspath(report.file),
        "cores": os.cpu_count(),
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "cc": verify.cc,
        "args": list(verify.args),
        "pragmas": report.pragmas,
        "timings": [asdict(t) for t in report.timings],
        "loops": list(report.loops),
    }


def render_bench(report: BenchReport) -> str:
    """The report as text: one line per build and thread count, then the notes."""
    serial = next(
        (t.wall_s for t in report.timings if t.threads is None and t.wall_s), None
    )
    lines = [f"bench: {report.file} ({report.pragmas} pragma(s) inserted)"]
    for t in report.timings:
        where = "serial" if t.threads is None else f"{t.threads} thread(s)"
        if t.wall_s is None:
            why = f"OUTPUT DIFFERS: {t.note}" if t.matches is False else t.note
            lines.append(f"  {t.label:<20} {where:<12} no time: {why}")
            continue
        speed = f"  {serial / t.wall_s:5.2f}x" if serial and t.threads else ""
        verdict = "  output matches" if t.matches else ""
        lines.append(f"  {t.label:<20} {where:<12} {t.wall_s:8.3f} s{speed}{verdict}")
    lines += [f"note: {n}" for n in report.notes]
    if report.stored:
        lines.append(f"recorded in {report.stored}")
    return "\n".join(lines) + "\n"
