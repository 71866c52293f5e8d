"""`accls-train evaluate`: the seed's metrics for each backend, side by side.

For every pair of a split (default `test`), each backend predicts the pragma of
the loop at the pair's line: `analysis` (the rules), `model` (the top candidate
of a local transformers model), `hybrid` (both, validated and ranked as the
server does). Each prediction is compiled into the pair's unit and race-checked.
Writes `metrics.json`, `report.md` (tables and the error taxonomy) and
`chart.png`; `--out X.json` writes `X.json`, `X.md` and `X.png` instead.
Predictions are checkpointed in `predictions.jsonl`, so a rerun resumes.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accls.suggest.backends import BackendError
from accls.validation import CompilerSettings, default_cache_dir

from accls_train import metrics
from accls_train.checkpoint import load_checkpoint
from accls_train.console import Bar, fail, say
from accls_train.dataset import DatasetError, Pair, read_pairs
from accls_train.eval_report import dump, report_json, write_chart, write_markdown
from accls_train.metrics import Score, Summary, score, summarise
from accls_train.predict import BACKENDS, Predictor
from accls_train.validate import Validator

__all__ = ["Outputs", "evaluate", "main"]

STATE_VERSION = 1
REFERENCE = "reference"


class Outputs:
    """Where the report files go: a folder, or the stem of `X.json`."""

    def __init__(self, out: Path) -> None:
        if out.suffix == ".json":
            self.json, self.markdown = out, out.with_suffix(".md")
            self.chart, self.state = out.with_suffix(".png"), out.with_suffix(".jsonl")
        else:
            self.json, self.markdown = out / "metrics.json", out / "report.md"
            self.chart, self.state = out / "chart.png", out / "predictions.jsonl"
        self.json.parent.mkdir(parents=True, exist_ok=True)


def _load_state(path: Path, header: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(r["backend"], r["id"]): r for r in load_checkpoint(path, header)}


def _score_rows(
    pairs: Sequence[Pair],
    predictions: Sequence[str | None],
    validator: Validator,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for pair, predicted in zip(pairs, predictions, strict=True):
        row: dict[str, Any] = {"id": pair.id, "prediction": predicted}
        if predicted is not None:
            verdict = validator.check(pair.mcu, pair.line, predicted, pair.model)
            row.update(compiles=verdict.compiles, race_free=verdict.race_free)
        rows.append(row)
    return rows


def evaluate(
    pairs: Sequence[Pair],
    backends: Sequence[str],
    validator: Validator,
    *,
    state: Path,
    header: dict[str, Any],
    model_path: str = "",
    device: str = "auto",
    fresh: bool = False,
) -> dict[str, list[Score]]:
    """Scores per backend (the experts' own pragmas first, as `reference`)."""
    done = {} if fresh else _load_state(state, header)
    compiler = CompilerSettings(cc="gcc") if validator.has_compiler else None
    scores: dict[str, list[Score]] = {}
    bar = Bar(len(pairs) * (len(backends) + 1), "evaluate")
    with state.open("w", encoding="utf-8") as log:
        log.write(json.dumps(header) + "\n")
        for name in (REFERENCE, *backends):
            todo = [p for p in pairs if (name, p.id) not in done]
            rows: dict[str, dict[str, Any]] = {
                p.id: done[(name, p.id)] for p in pairs if (name, p.id) in done
            }
            bar.update(len(pairs) - len(todo))
            if todo:
                if name == REFERENCE:
                    predicted: list[str | None] = [p.pragma for p in todo]
                    bar.update(len(todo))
                else:
                    predictor = Predictor(
                        name, model_path=model_path, device=device, compiler=compiler
                    )
                    predicted = predictor.predict(todo, bar.update)
                for row in _score_rows(todo, predicted, validator):
                    rows[row["id"]] = {"backend": name, **row}
            for pair in pairs:
                log.write(json.dumps({"backend": name, **rows[pair.id]}) + "\n")
            scores[name] = [
                score(
                    pair.pragma,
                    rows[pair.id]["prediction"],
                    compiles=rows[pair.id].get("compiles"),
                    race_free=rows[pair.id].get("race_free"),
                )
                for pair in pairs
            ]
    bar.close()
    return scores


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train evaluate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--data", type=Path, required=True, help="pairs JSONL")
    parser.add_argument("--split", default="test", help="train|valid|test|all")
    parser.add_argument(
        "--backends",
        default="",
        help="comma-separated: analysis,model,hybrid "
        "(default: analysis, plus model,hybrid when a model is given)",
    )
    parser.add_argument("--model-path", "--model", dest="model_path", default="")
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda")
    parser.add_argument("--out", type=Path, default=Path("training/runs/eval"))
    parser.add_argument("--limit", type=int, default=0, help="first N pairs only")
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--cache-dir", default=None, help="compile cache folder")
    parser.add_argument(
        "--fresh", action="store_true", help="ignore checkpoints of an earlier run"
    )
    return parser


def _summaries(
    pairs: Sequence[Pair], scores: dict[str, list[Score]]
) -> tuple[dict[str, Summary], dict[str, dict[str, Summary]]]:
    totals = {name: summarise(s) for name, s in scores.items()}
    by_model: dict[str, dict[str, Summary]] = {}
    for name, found in scores.items():
        for model in sorted({p.model for p in pairs}):
            picked = [s for p, s in zip(pairs, found, strict=True) if p.model == model]
            by_model.setdefault(name, {})[model] = summarise(picked)
    return totals, by_model


def main(argv: Sequence[str]) -> int:
    """Evaluate backends on a split and write the report."""
    args = _parser().parse_args(list(argv))
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends:
        backends = ["analysis", "model", "hybrid"] if args.model_path else ["analysis"]
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown:
        return fail(
            f"evaluate: unknown backend {unknown[0]!r} (use {', '.join(BACKENDS)})"
        )
    if any(b != "analysis" for b in backends) and not args.model_path:
        return fail("evaluate: the model and hybrid backends need --model-path")
    if args.model_path and not Path(args.model_path).is_dir():
        return fail(f"evaluate: no model folder at {args.model_path}")
    try:
        pairs = read_pairs(args.data, None if args.split == "all" else args.split)
    except DatasetError as exc:
        return fail(f"evaluate: {exc}")
    if args.limit > 0:
        pairs = pairs[: args.limit]
    if not pairs:
        return fail(f"evaluate: no pairs in split {args.split!r} of {args.data}")
    validator = Validator(args.cc, args.cache_dir or default_cache_dir())
    if not validator.has_compiler:
        say(f"evaluate: warning: {args.cc} not found, compile rates are n/a")
    out = Outputs(args.out)
    model_stamp = os.stat(args.model_path).st_mtime_ns if args.model_path else 0
    header = {
        "version": STATE_VERSION,
        "data": str(Path(args.data).resolve()),
        "split": args.split,
        "model": str(Path(args.model_path).resolve()) if args.model_path else "",
        "model_stamp": model_stamp,
    }
    try:
        scores = evaluate(
            pairs,
            backends,
            validator,
            state=out.state,
            fresh=args.fresh,
            header=header,
            model_path=args.model_path,
            device=args.device,
        )
    except BackendError as exc:
        return fail(f"evaluate: model backend: {exc}")
    totals, by_model = _summaries(pairs, scores)
    models = ", ".join(
        f"{m} {sum(1 for p in pairs if p.model == m)}"
        for m in sorted({p.model for p in pairs})
    )
    head = {
        "data": str(args.data),
        "split": args.split,
        "n": len(pairs),
        "models": models,
        "repos": sorted({p.repo for p in pairs}),
        "model_path": args.model_path,
    }
    report = report_json(head, totals, by_model)
    dump(out.json, report)
    chart = out.chart.name if write_chart(out.chart, report) else None
    write_markdown(out.markdown, report, chart, metrics.__doc__ or "")
    for name, summary in totals.items():
        row = summary.row()
        say(
            f"evaluate: {name:9s} n={row['n']} "
            + " ".join(
                f"{k}={'n/a' if v is None else f'{v:.3f}'}"
                for k, v in row.items()
                if k != "n"
            )
        )
    say(f"evaluate: report -> {out.markdown}")
    return 0
