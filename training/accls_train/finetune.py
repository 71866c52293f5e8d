"""`accls-train finetune`: train a model on pairs (LoRA/QLoRA, or from scratch).

Multi-GPU: `accelerate launch --num_processes N -m accls_train.cli finetune ...`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from accls_train.config import ConfigError, TrainConfig, load_config
from accls_train.dataset import DatasetError, Pair, read_pairs
from accls_train.examples import Encoded, completion_text, encode, prompts_of
from accls_train.modeling import build_from_scratch, load_trainable, save_weights
from accls_train.syntax import SyntaxTerm
from accls_train.tokenizer import load_tokenizer, train_tokenizer
from accls_train.trainer import LoopResult, LoopSetup, latest_checkpoint, run_steps

__all__ = ["FinetuneError", "Run", "finetune", "main", "model_base"]

SYNTAX_FORMULA = (
    "L = sum_i w_i (1 + lambda nc_i) CE_i / sum_i w_i; CE_i = mean token cross-entropy"
    " of example i's pragma, w_i its weight, nc_i = 1 when the model's argmax pragma"
    " for it did not compile at its last check (gcc -fsyntax-only)"
)


class FinetuneError(Exception):
    """Training cannot start: no usable examples, a run folder in the way, ..."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """Where a fine-tuning run wrote its model and what it measured."""

    out: Path
    final: Path  # weights (or adapter) and tokenizer
    base: str | None  # what an adapter applies to; None for whole weights
    loop: LoopResult
    summary: dict[str, Any]


def model_base(path: Path) -> str | None:
    """The base an adapter folder applies to; None for a folder of whole weights."""
    adapter = path / "adapter_config.json"
    if not adapter.is_file():
        return None
    raw = json.loads(adapter.read_text(encoding="utf-8"))
    return str(raw.get("base_model_name_or_path") or "") or None


def _tokenizer(
    config: TrainConfig, out: Path, init: Path | None, texts: list[str]
) -> Any:
    if init is not None:
        return load_tokenizer(init)
    if not config.model.from_scratch:
        return load_tokenizer(config.model.base)
    folder = out / "tokenizer"
    if (folder / "tokenizer.json").is_file():
        return load_tokenizer(folder)
    return train_tokenizer(texts, config.model.vocab_size, folder)


def _base(
    config: TrainConfig, out: Path, init: Path | None, tokenizer: Any
) -> str | None:
    """The frozen base LoRA applies to; None when every weight trains."""
    if init is not None:
        if (init / "adapter_config.json").is_file():
            return model_base(init)
        return str(init) if config.lora.enabled else None
    if not config.model.from_scratch:
        return config.model.base
    if not config.lora.enabled:
        return None
    # LoRA over a model built here: save the base once so adapters can name it.
    folder = out / "base"
    if not (folder / "config.json").is_file():
        save_weights(build_from_scratch(config, tokenizer), folder)
        tokenizer.save_pretrained(str(folder))
    return str(folder)


def _origins(pairs: Sequence[Pair]) -> dict[str, int]:
    return dict(Counter(p.origin.split(":", 1)[0] for p in pairs))


def finetune(
    config: TrainConfig,
    train: Sequence[Pair],
    valid: Sequence[Pair],
    out: Path,
    *,
    resume: bool = False,
    init: Path | None = None,
    max_steps: int = 0,
    progress: bool = True,
    stage: str = "finetune",
) -> Run:
    """Train on `train`, write checkpoints and `final/` under `out`."""
    if not train:
        raise FinetuneError("no training pairs")
    checkpoint = latest_checkpoint(out)
    if checkpoint is not None and not resume:
        raise FinetuneError(f"{out} holds checkpoints: pass --resume or another --out")
    prompts = prompts_of([*train, *valid])
    texts = [
        p + completion_text(pair)
        for p, pair in zip(prompts, [*train, *valid], strict=True)
        if p
    ]
    from accelerate import PartialState

    state = PartialState()
    # Under `accelerate launch`, the first process builds the tokenizer and base.
    with state.main_process_first():
        tokenizer = _tokenizer(config, out, init, texts)
        base = _base(config, out, init, tokenizer)
    length = config.training.max_seq_length
    encoded = encode(train, prompts[: len(train)], tokenizer, length)
    held: Encoded = encode(valid, prompts[len(train) :], tokenizer, length)
    if not encoded.examples:
        raise FinetuneError(
            f"none of {len(train)} pairs is usable ({encoded.no_loop} without a "
            f"loop at their line, {encoded.too_long} over {length} tokens)"
        )
    model = load_trainable(config, tokenizer, start=checkpoint or init, base=base)
    t = config.training
    steps = max_steps or t.max_steps
    if not steps:
        steps = math.ceil(t.epochs * len(encoded.examples) / t.batch_size)
    setup = LoopSetup(
        training=t,
        examples=encoded.examples,
        valid=held.examples,
        out=out,
        total_steps=steps,
        syntax=SyntaxTerm(config.syntax.weight, config.syntax.cc)
        if config.syntax.weight > 0
        else None,
        syntax_every=config.syntax.every,
        stage=stage,
        progress=progress,
    )
    result = run_steps(setup, model, tokenizer, resume=checkpoint)
    final = out / "final"
    if state.is_main_process:
        save_weights(model, final)
        tokenizer.save_pretrained(str(final))
    summary = {
        "name": config.name,
        "stage": stage,
        "base": base,
        "init": str(init) if init else None,
        "from_scratch": config.model.from_scratch,
        "pairs": {"train": len(train), "valid": len(valid)},
        "origins": _origins(train),
        "examples": {"train": len(encoded.examples), "valid": len(held.examples)},
        "skipped": {"no_loop": encoded.no_loop, "too_long": encoded.too_long},
        "steps": steps,
        "first_loss": result.losses[0] if result.losses else None,
        "last_loss": result.losses[-1] if result.losses else None,
        "valid_loss": result.valid_loss,
        "tokens_per_s": round(result.tokens / max(result.seconds, 1e-9)),
        "seconds": round(result.seconds, 1),
        "peak_mem_mb": round(result.peak_mem_mb, 1),
        "syntax_loss": SYNTAX_FORMULA,
        "config": asdict(config),
    }
    if state.is_main_process:
        (out / "run.json").write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    return Run(out=out, final=final, base=base, loop=result, summary=summary)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train finetune", description="Fine-tune a model on pairs."
    )
    parser.add_argument("--config", required=True, help="TOML file (training/configs)")
    parser.add_argument("--data", required=True, help="pairs JSONL (its train split)")
    parser.add_argument(
        "--valid", help="held-out pairs JSONL (default: --data's valid)"
    )
    parser.add_argument("--out", help="run folder (default: training/runs/<name>)")
    parser.add_argument(
        "--resume", action="store_true", help="go on from the last checkpoint"
    )
    parser.add_argument(
        "--init", help="start from this model folder (export or final/)"
    )
    parser.add_argument("--max-steps", type=int, default=0, help="override the config")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stage; 0 on success, 2 with a one-line error otherwise."""
    args = _parser().parse_args(argv)
    try:
        config = load_config(args.config)
        pairs = read_pairs(args.data)
        train = [p for p in pairs if p.split == "train"]
        valid = (
            read_pairs(args.valid)
            if args.valid
            else [p for p in pairs if p.split == "valid"]
        )
        out = Path(args.out or f"training/runs/{config.name}")
        run = finetune(
            config,
            train,
            valid,
            out,
            resume=args.resume,
            init=Path(args.init) if args.init else None,
            max_steps=args.max_steps,
            progress=not args.no_progress,
        )
    except (ConfigError, DatasetError, FinetuneError, OSError) as exc:
        print(f"accls-train finetune: error: {exc}", file=sys.stderr)
        return 2
    s = run.summary
    losses = (
        f"loss {s['first_loss']:.3f} -> {s['last_loss']:.3f}"
        if run.loop.losses
        else "nothing left to train"
    )
    held = f"{s['valid_loss']:.3f}" if s["valid_loss"] is not None else "n/a"
    print(
        f"finetune: {s['steps']} steps, {losses}, valid loss {held}, "
        f"{s['tokens_per_s']} tokens/s, model in {run.final}"
    )
    return 0
