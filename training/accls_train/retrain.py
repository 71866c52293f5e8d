"""`accls-train retrain --feedback`: fold applied (and edited) suggestions into a model.

Input is `accls feedback export` JSONL (id, time, uri, model, target, source,
prompt, loop, suggested, final, edited). Each record's `final` pragma (what the
user kept, after any edit) becomes a training pair of weight `--weight`; the
pairs are merged with the base data, written to `<out>/merged.jsonl`, and the
model in `--from` is fine-tuned on them and exported again.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accls.suggest import Dialect, parse_pragma

from accls_train.config import ConfigError, load_config
from accls_train.dataset import (
    DatasetError,
    Pair,
    json_records,
    read_pairs,
    target_of,
    write_pairs,
)
from accls_train.export import ExportError, export_model
from accls_train.finetune import FinetuneError, finetune

__all__ = ["feedback_pairs", "main", "read_feedback", "unit_from_prompt"]

FUNCTION = "void accls_feedback_unit(void)"


def read_feedback(path: Path) -> list[dict[str, Any]]:
    """The records of a feedback export; raises DatasetError on a malformed line."""
    records = []
    for where, raw in json_records(path):
        missing = [k for k in ("model", "prompt", "loop", "final") if k not in raw]
        if missing:
            raise DatasetError(f"{where}: missing field {missing[0]!r}")
        records.append(raw)
    return records


def unit_from_prompt(prompt: str, loop: str) -> tuple[str, int]:
    """A compilable unit for a feedback loop: its prompt's declarations as locals.

    Returns the unit and the 1-based line of the loop's `for`. The prompt's
    `declarations:` lines are one C declaration each (see `build_prompt`).
    """
    lines = prompt.splitlines()
    decls: list[str] = []
    if "declarations:" in lines:
        start = lines.index("declarations:") + 1
        end = lines.index("loop:") if "loop:" in lines else len(lines)
        decls = [d for d in lines[start:end] if d.strip()]
    body = [f"  {d}" for d in decls]
    line = len(body) + 2
    body.extend(f"  {text}" if text else "" for text in loop.splitlines())
    return f"{FUNCTION} {{\n" + "\n".join(body) + "\n}\n", line


def feedback_pairs(records: Sequence[dict[str, Any]], weight: float) -> list[Pair]:
    """Training pairs from feedback: the user's final pragma is the reference."""
    pairs: list[Pair] = []
    for raw in records:
        model = str(raw["model"])
        final = " ".join(str(raw["final"]).split())
        pragma = parse_pragma(final)
        if model not in ("openacc", "openmp") or pragma is None:
            continue  # the user removed the pragma, or kept something unparsable
        if pragma.dialect is not Dialect(model):
            continue
        mcu, line = unit_from_prompt(str(raw["prompt"]), str(raw["loop"]))
        target = str(raw.get("target") or target_of(model, final))
        pairs.append(
            Pair(
                id=f"feedback:{raw.get('id', len(pairs))}",
                repo="feedback",
                path=str(raw.get("uri", "")),
                line=line,
                model=model,
                target=target if target in ("gpu", "cpu") else target_of(model, final),
                pragma=final,
                loop=str(raw["loop"]),
                mcu=mcu,
                origin="feedback",
                weight=weight,
            )
        )
    return pairs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train retrain",
        description="Fine-tune the current model on accepted editor feedback.",
    )
    parser.add_argument(
        "--feedback", required=True, help="`accls feedback export` JSONL"
    )
    parser.add_argument("--base", required=True, help="the base pairs JSONL")
    parser.add_argument("--weight", type=float, default=3.0, help="feedback weight")
    parser.add_argument("--from", dest="source", required=True, help="current model")
    parser.add_argument("--config", default="training/configs/tiny.toml")
    parser.add_argument(
        "--out", help="run folder (default: training/runs/<name>-retrain)"
    )
    parser.add_argument("--name", help="exported model name (default: --from's name)")
    parser.add_argument("--models", default="models", help="where to export")
    parser.add_argument("--max-steps", type=int, default=0, help="override the config")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stage; 0 on success, 2 with a one-line error otherwise."""
    args = _parser().parse_args(argv)
    source = Path(args.source)
    name = args.name or source.name
    out = Path(args.out or f"training/runs/{name}-retrain")
    try:
        if args.weight <= 0:
            raise DatasetError("--weight must be > 0")
        config = load_config(args.config)
        new = feedback_pairs(read_feedback(Path(args.feedback)), args.weight)
        if not new:
            raise DatasetError(f"{args.feedback}: no applied pragma to learn from")
        base = read_pairs(args.base)
        merged = [*base, *new]
        write_pairs(out / "merged.jsonl", merged)
        run = finetune(
            config,
            [p for p in merged if p.split == "train"],
            [p for p in merged if p.split == "valid"],
            out,
            resume=args.resume,
            init=source,
            max_steps=args.max_steps,
            progress=not args.no_progress,
            stage="retrain",
        )
        dest = export_model(out, Path(args.models) / name, name=name)
    except (ConfigError, DatasetError, FinetuneError, ExportError, OSError) as exc:
        print(f"accls-train retrain: error: {exc}", file=sys.stderr)
        return 2
    print(
        f"retrain: {len(new)} feedback pairs (weight {args.weight}) + "
        f"{len(base)} base; {run.summary['steps']} steps; model in {dest}"
    )
    return 0
