"""`accls-train perf`: cost-model weights fitted to bench measurements, held out."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from accls.analysis.cost_weights import FEATURE_NAMES, LoopFeatures, load_weights
from accls_train.cli import main
from accls_train.perf_fit import (
    Sample,
    fit_ridge,
    pairwise_accuracy,
    samples_of,
    split_programs,
)


def _features(rng: random.Random) -> LoopFeatures:
    units = 10 ** rng.uniform(1, 7)
    return LoopFeatures(
        units=units,
        iterations=min(units, 10 ** rng.uniform(0, 6)),
        flops=0.3 * units,
        memory=0.5 * units,
        calls=0.0,
        bytes=4.0 * units,
        nested=rng.random() < 0.15,
        executions=10 ** rng.uniform(0, 3),
        open_sizes=rng.choice((0, 1)),
    )


def _truth(f: LoopFeatures) -> float:
    """A made-up machine: work pays from 2·10^4 units on, nested regions never."""
    gain = 0.45 * (math.log10(f.units) - math.log10(20_000)) - 1.2 * f.nested
    return max(-3.0, min(1.0, gain))


def _records(programs: int, seed: int = 1) -> list[dict[str, object]]:
    """Bench records as `accls bench --per-loop` writes them, from `_truth`."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for p in range(programs):
        serial = 1.0
        loops, timings = [], [{"label": "serial", "threads": None, "wall_s": serial}]
        for line in (10, 20, 30, 40):
            f = _features(rng)
            speedup = _truth(f) + rng.gauss(0.0, 0.03)
            loops.append({"line": line, "estimate": {"features": f.as_json()}})
            timings.append(
                {
                    "label": f"loop at line {line}",
                    "threads": 2,
                    "wall_s": serial / 2**speedup,
                    "matches": True,
                }
            )
        out.append({"file": f"/src/prog{p}.c", "timings": timings, "loops": loops})
    return out


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_perf_fits_and_ranks_held_out_programs(tmp_path: Path) -> None:
    bench = _write(tmp_path / "bench.jsonl", _records(40))
    out = tmp_path / "perf"
    assert main(["perf", str(bench), "--out", str(out), "--where", "test box"]) == 0
    card = json.loads((out / "weights.json").read_text())
    assert card["features"] == list(FEATURE_NAMES)
    assert card["samples"] == 160
    assert card["programs"] == 40
    held = card["held_out"]
    assert held["pairs"] > 50
    assert held["pairwise_accuracy"] >= 0.9
    # Work alone (the constant model) cannot see the nested regions.
    assert held["pairwise_accuracy"] > held["pairwise_accuracy_constant_model"]
    # No held-out program lent a sample to the fit.
    assert card["train_samples"] + card["held_out_samples"] == 160
    text = (out / "README.md").read_text()
    assert "test box" in text
    assert str(held["pairwise_accuracy"]) in text
    weights = load_weights(str(out / "weights.json"))
    assert weights is not None
    assert weights.threads == 2
    rng = random.Random(7)
    agree = 0
    for _ in range(200):
        f = _features(rng)
        agree += weights.pays(f) == (_truth(f) > 0)
    assert agree >= 180


def test_split_keeps_programs_whole() -> None:
    samples = [s for r in _records(30) for s in samples_of(r)]
    train, test = split_programs(samples, 0.3, seed=0)
    assert train
    assert test
    assert not {s.program for s in train} & {s.program for s in test}


def test_pairwise_accuracy_counts_only_pairs_beyond_the_margin() -> None:
    def sample(line: int, speedup: float) -> Sample:
        return Sample(
            program="p.c",
            line=line,
            threads=2,
            features=(1.0,) * len(FEATURE_NAMES),
            units=1.0,
            speedup=speedup,
        )

    items = [sample(1, 0.5), sample(2, 0.52), sample(3, -1.0)]
    # Pairs: (1,2) a tie; (1,3), (2,3), (1,serial), (2,serial), (3,serial) count.
    perfect, pairs = pairwise_accuracy(items, lambda s: s.speedup, 0.1)
    assert (perfect, pairs) == (1.0, 5)
    backwards, _ = pairwise_accuracy(items, lambda s: -s.speedup, 0.1)
    assert backwards == 0.0


def test_fit_recovers_a_linear_rule() -> None:
    rng = random.Random(3)
    samples = []
    for k in range(60):
        f = _features(rng)
        y = 0.5 * math.log10(1 + f.units) - 2.0
        samples.append(
            Sample(
                program=f"p{k}",
                line=1,
                threads=2,
                features=f.vector(2),
                units=f.units,
                speedup=y,
            )
        )
    weights = fit_ridge(samples, ridge=1e-6)
    names = dict(zip(FEATURE_NAMES, weights, strict=True))
    assert names["log10_units"] == pytest.approx(0.5, abs=0.05)


def test_mismatched_or_unfeatured_timings_are_no_samples() -> None:
    (record,) = _records(1)
    timings = record["timings"]
    assert isinstance(timings, list)
    timings[1]["matches"] = False  # output differs: its time says nothing
    record["loops"] = record["loops"][:-1]  # type: ignore[index]
    assert [s.line for s in samples_of(record)] == [20, 30]


def test_too_few_measurements_is_one_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _write(tmp_path / "bench.jsonl", _records(1))
    assert main(["perf", str(bench), "--out", str(tmp_path / "perf")]) != 0
    err = capsys.readouterr().err
    assert "too few measurements" in err
    assert not (tmp_path / "perf").exists()
