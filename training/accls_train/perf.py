"""`accls-train perf BENCH.jsonl...`: fit the cost model's weights to measured speedups.

Reads `accls bench --per-loop` records (each candidate loop timed on its own, with the
cost model's features), splits them by program, fits a ridge regression from the
features to the measured log2 speedup, reports the pairwise ranking accuracy ("which
of two versions of a program is faster") on the held-out programs beside today's
constant model, and writes `models/perf/weights.json` and its data card (README.md),
which `accls.analysis.cost` reads.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accls.analysis.cost_weights import FEATURE_NAMES

from accls_train.console import fail, say
from accls_train.perf_fit import (
    Sample,
    constant_score,
    fit_ridge,
    load_samples,
    pairwise_accuracy,
    predict,
    sign_accuracy,
    split_programs,
)

__all__ = ["main"]

_MODELS = Path(__file__).resolve().parents[2] / "models" / "perf"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train perf",
        description=(
            "Fit the cost model's weights to `accls bench --per-loop` measurements "
            "and report held-out pairwise ranking accuracy."
        ),
    )
    parser.add_argument("bench", nargs="+", help="bench JSONL files (the local store)")
    parser.add_argument("--out", type=Path, default=_MODELS, help="models/perf folder")
    parser.add_argument("--test-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ridge", type=float, default=1.0, help="L2 penalty")
    parser.add_argument(
        "--margin",
        type=float,
        default=0.1,
        help="log2 speedups closer than this are ties (timing noise), not counted",
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.0,
        help="predicted log2 speedup a pragma must exceed to pay (0: any speedup)",
    )
    parser.add_argument("--threads", type=int, default=2, help="threads decided for")
    parser.add_argument("--where", default="", help="the machine, for the data card")
    return parser


def _metrics(
    test: Sequence[Sample], weights: Sequence[float], margin: float
) -> dict[str, object]:
    fitted, pairs = pairwise_accuracy(test, lambda s: predict(weights, s), margin)
    constant, _ = pairwise_accuracy(test, constant_score, margin)
    pays, kept = sign_accuracy(test, lambda s: predict(weights, s), margin)
    pays_constant, _ = sign_accuracy(test, constant_score, margin)
    return {
        "pairs": pairs,
        "pairwise_accuracy": round(fitted, 4),
        "pairwise_accuracy_constant_model": round(constant, 4),
        "decisions": kept,
        "pays_accuracy": round(pays, 4),
        "pays_accuracy_constant_model": round(pays_constant, 4),
    }


def main(argv: list[str]) -> int:
    """Fit, evaluate on held-out programs, write weights and card; one summary line."""
    args = _parser().parse_args(argv)
    try:
        samples, records = load_samples(args.bench)
    except OSError as exc:
        return fail(f"cannot read the measurements: {exc}")
    train, test = split_programs(samples, args.test_share, args.seed)
    if len(train) < len(FEATURE_NAMES) or not test:
        return fail(
            f"too few measurements: {len(train)} training and {len(test)} held-out "
            f"samples from {records} records (run `accls bench --per-loop --all` on "
            "more programs)"
        )
    weights = fit_ridge(train, args.ridge)
    held_out = _metrics(test, weights, args.margin)
    final = fit_ridge(samples, args.ridge)  # shipped: fitted on every program
    card: dict[str, Any] = {
        "features": list(FEATURE_NAMES),
        "coefficients": [round(w, 6) for w in final],
        "threshold": args.threshold,
        "threads": args.threads,
        "trained": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "measured_on": args.where or f"{platform.node()} ({os.cpu_count()} cores)",
        "records": records,
        "samples": len(samples),
        "programs": len({s.program for s in samples}),
        "held_out_programs": sorted({Path(s.program).name for s in test}),
        "train_samples": len(train),
        "held_out_samples": len(test),
        "ridge": args.ridge,
        "margin": args.margin,
        "held_out": held_out,
        "train": _metrics(train, weights, args.margin),
        "sources": [str(Path(p).name) for p in args.bench],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "weights.json").write_text(json.dumps(card, indent=1) + "\n")
    (args.out / "README.md").write_text(_card_text(card))
    say(
        f"perf: {len(samples)} samples from {card['programs']} programs; held-out "
        f"pairwise accuracy {held_out['pairwise_accuracy']} over "
        f"{held_out['pairs']} pairs (constant model "
        f"{held_out['pairwise_accuracy_constant_model']}); wrote {args.out}"
    )
    return 0


def _card_text(card: dict[str, Any]) -> str:
    held = card["held_out"]
    weights = zip(card["features"], card["coefficients"], strict=True)
    lines = [
        "# perf: the cost model's fitted weights",
        "",
        f"Fitted by `accls-train perf` on {card['trained']}: a ridge regression "
        f"(penalty {card['ridge']}) from a candidate loop's cost-model features to the "
        "measured log2 speedup of its program when that loop alone runs in parallel. "
        "`accls.analysis.cost` reads `weights.json`: a CPU pragma on a loop whose work "
        f"is known pays when the predicted log2 speedup at {card['threads']} threads "
        f"exceeds {card['threshold']}. Delete this folder to return to the constant "
        "threshold.",
        "",
        "## What was measured, where",
        "",
        f"- `accls bench --per-loop --all` records: {card['records']} "
        f"({', '.join(card['sources'])}), {card['samples']} timed loops from "
        f"{card['programs']} programs.",
        f"- Machine: {card['measured_on']}. Timings on a shared machine are noisy: "
        f"pairs closer than {card['margin']} in log2 speedup count as ties.",
        f"- Split by program: {card['train_samples']} training samples, "
        f"{card['held_out_samples']} held out "
        f"({', '.join(card['held_out_programs'])}).",
        "",
        "## Held-out accuracy",
        "",
        "| measure | fitted | constant model |",
        "| --- | --- | --- |",
        f"| pairwise ranking ({held['pairs']} pairs: which of two versions is faster) "
        f"| {held['pairwise_accuracy']} | {held['pairwise_accuracy_constant_model']} |",
        f"| pays or not ({held['decisions']} loops: faster than serial?) "
        f"| {held['pays_accuracy']} | {held['pays_accuracy_constant_model']} |",
        "",
        "## Weights",
        "",
        "| feature | weight |",
        "| --- | --- |",
        *(f"| {name} | {w:+.4f} |" for name, w in weights),
    ]
    return "\n".join(lines) + "\n"
