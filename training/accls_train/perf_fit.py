"""Samples from `accls bench` records, a ridge regression, pairwise ranking accuracy.

A sample is one candidate loop timed on its own (`accls bench --per-loop`): the cost
model's features of that loop, and the measured log2 speedup of its program over the
serial build. Programs are split whole between training and held-out sets, so the
accuracy is measured on code the fit never saw. Pure Python: an 11-feature least
squares needs no numerical library.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from accls.analysis.cost import REGION_UNITS
from accls.analysis.cost_weights import FEATURE_NAMES, LoopFeatures

__all__ = [
    "Sample",
    "fit_ridge",
    "load_samples",
    "pairwise_accuracy",
    "predict",
    "sign_accuracy",
    "split_programs",
]

_LABEL = "loop at line "
Score = Callable[["Sample"], float]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sample:
    """One loop of one program, parallel on its own, and its measured speedup."""

    program: str  # the file benched
    line: int
    threads: int
    features: tuple[float, ...]  # LoopFeatures.vector(threads)
    units: float  # the cost model's work estimate (open sizes filled in)
    speedup: float  # log2(serial wall / this version's wall)


def _features(data: dict[str, object]) -> LoopFeatures | None:
    try:
        return LoopFeatures(
            units=float(data["units"]),  # type: ignore[arg-type]
            iterations=float(data["iterations"]),  # type: ignore[arg-type]
            flops=float(data["flops"]),  # type: ignore[arg-type]
            memory=float(data["memory"]),  # type: ignore[arg-type]
            calls=float(data["calls"]),  # type: ignore[arg-type]
            bytes=float(data["bytes"]),  # type: ignore[arg-type]
            nested=bool(data["nested"]),
            executions=float(data["executions"]),  # type: ignore[arg-type]
            open_sizes=int(data["open_sizes"]),  # type: ignore[call-overload]
        )
    except (KeyError, TypeError, ValueError):
        return None


def samples_of(record: dict[str, object]) -> list[Sample]:
    """The samples of one bench record: its per-loop timings with their features."""
    timings = record.get("timings")
    loops = record.get("loops")
    if not isinstance(timings, list) or not isinstance(loops, list):
        return []
    serial = next((t.get("wall_s") for t in timings if t.get("threads") is None), None)
    if not isinstance(serial, int | float) or serial <= 0:
        return []
    by_line: dict[int, LoopFeatures] = {}
    for loop in loops:
        estimate = loop.get("estimate") or {}
        found = _features(estimate.get("features") or {})
        if found is not None and isinstance(loop.get("line"), int):
            by_line[int(loop["line"])] = found
    out: list[Sample] = []
    for t in timings:
        label, wall, threads = t.get("label", ""), t.get("wall_s"), t.get("threads")
        if not str(label).startswith(_LABEL) or t.get("matches") is not True:
            continue
        if (
            not isinstance(wall, int | float)
            or wall <= 0
            or not isinstance(threads, int)
        ):
            continue
        line = int(str(label)[len(_LABEL) :])
        found = by_line.get(line)
        if found is None:
            continue
        out.append(
            Sample(
                program=str(record.get("file", "")),
                line=line,
                threads=threads,
                features=found.vector(threads),
                units=found.units,
                speedup=math.log2(serial / wall),
            )
        )
    return out


def load_samples(paths: Iterable[str | Path]) -> tuple[list[Sample], int]:
    """Every sample of the bench JSONL files, and how many records were read."""
    samples: list[Sample] = []
    records = 0
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                records += 1
                samples += samples_of(record)
    return samples, records


def split_programs(
    samples: Sequence[Sample], test_share: float, seed: int
) -> tuple[list[Sample], list[Sample]]:
    """(train, held out): whole programs, chosen by a seeded hash of their name."""

    def held(program: str) -> bool:
        digest = hashlib.sha256(f"{seed}:{Path(program).name}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < test_share

    train = [s for s in samples if not held(s.program)]
    test = [s for s in samples if held(s.program)]
    return train, test


def fit_ridge(samples: Sequence[Sample], ridge: float) -> tuple[float, ...]:
    """Least squares with an L2 penalty on every coefficient but the bias."""
    size = len(FEATURE_NAMES)
    matrix = [[0.0] * size for _ in range(size)]
    rhs = [0.0] * size
    for s in samples:
        for i, xi in enumerate(s.features):
            rhs[i] += xi * s.speedup
            for j, xj in enumerate(s.features):
                matrix[i][j] += xi * xj
    for i in range(1, size):
        matrix[i][i] += ridge
    matrix[0][0] += 1e-9
    return tuple(_solve(matrix, rhs))


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a singular column gets 0)."""
    n = len(rhs)
    rows = [[*matrix[i], rhs[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            continue
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [
                    a - factor * b for a, b in zip(rows[r], rows[col], strict=True)
                ]
    return [
        rows[i][n] / rows[i][i] if abs(rows[i][i]) >= 1e-12 else 0.0 for i in range(n)
    ]


def predict(weights: Sequence[float], sample: Sample) -> float:
    """The fitted log2 speedup of a sample."""
    return sum(w * x for w, x in zip(weights, sample.features, strict=True))


def constant_score(sample: Sample) -> float:
    """Today's constant model as a score: log work over the region threshold."""
    return math.log10(1.0 + sample.units) - math.log10(REGION_UNITS)


def pairwise_accuracy(
    samples: Sequence[Sample],
    score: Score,
    margin: float,
) -> tuple[float, int]:
    """How often `score` orders two versions of one program as measured.

    Versions are the program's loops run in parallel one at a time, and the serial
    build (log2 speedup 0, score 0 for the fitted model's sign). Only pairs whose
    measured speedups differ by more than `margin` (log2) count: closer ones are
    within the timing noise. Returns (accuracy, pairs).
    """
    groups: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for s in samples:
        groups.setdefault((s.program, s.threads), []).append((s.speedup, score(s)))
    right = total = 0
    for versions in groups.values():
        versions = [*versions, (0.0, 0.0)]  # the serial build
        for (ya, pa), (yb, pb) in combinations(versions, 2):
            if abs(ya - yb) <= margin:
                continue
            total += 1
            right += (pa - pb) * (ya - yb) > 0
    return (right / total if total else float("nan")), total


def sign_accuracy(
    samples: Sequence[Sample], score: Score, margin: float
) -> tuple[float, int]:
    """How often `score > 0` says whether the loop's pragma paid (beyond `margin`)."""
    kept = [s for s in samples if abs(s.speedup) > margin]
    right = sum((score(s) > 0) == (s.speedup > 0) for s in kept)
    return (right / len(kept) if kept else float("nan")), len(kept)
