"""`accls-train STAGE ...`: one subcommand per training stage, imported lazily."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import cast

from accls_train.dataset import DatasetError

__all__ = ["STAGES", "main"]

STAGES: dict[str, str] = {
    "mine": "extract pragma-loop pairs from folders of C sources",
    "ingest": "turn a dev-pairs JSONL (pragma, loop) into dataset records",
    "augment": "multiply pairs by semantics-preserving rewrites, re-validated",
    "synthesize": "generate loops from templates, labelled by the analysis engine",
    "finetune": "fine-tune a model on pairs (LoRA/QLoRA)",
    "reward": "improve a model with compiler and race-check rewards",
    "evaluate": "compare backends on a split: metrics, taxonomy, report",
    "export": "merge and write a model directory accls can serve",
    "retrain": "fold accepted editor feedback into a new model",
    "perf": "fit the cost model's weights to `accls bench` measurements",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train",
        description="Build the dataset, train, evaluate and export accls models.",
        epilog="Run `accls-train STAGE --help` for a stage's options.",
    )
    commands = parser.add_subparsers(dest="stage", metavar="STAGE", required=True)
    for name, summary in STAGES.items():
        # Each stage parses its own options: pass everything after the name on.
        sub = commands.add_parser(name, help=summary, add_help=False)
        sub.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def _stage_main(stage: str) -> Callable[[list[str]], int]:
    """The `main` of `accls_train.<stage>`; imported only when the stage runs."""
    module = importlib.import_module(f"accls_train.{stage}")
    return cast(Callable[[list[str]], int], module.main)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one stage with the rest of the command line; return its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    parsed = _parser().parse_args(args[:1])
    stage = str(parsed.stage)
    try:
        run = _stage_main(stage)
    except ImportError as exc:
        # A stage whose extra (torch, peft, ...) is not installed.
        print(f"accls-train: error: {stage}: {exc}", file=sys.stderr)
        return 2
    try:
        return run(args[1:])
    except DatasetError as exc:
        # Stages report their own input errors; this catches a failed write.
        print(f"accls-train: error: {stage}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("accls-train: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
