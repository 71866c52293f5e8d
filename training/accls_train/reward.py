"""`accls-train reward`: rejection-sampling fine-tuning with the validator as reward.

Each round samples `reward.samples` candidates (temperature > 0) for
`reward.prompts` training prompts, scores them with `scoring.reward` (compiles,
race-free, clause Jaccard), keeps each prompt's best candidate when it scores at
least `reward.threshold`, and trains `reward.steps` steps on the kept pairs.
The mean reward of the greedy answers is measured before and after each round.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from accls_train.config import ConfigError, TrainConfig, load_config
from accls_train.dataset import DatasetError, Pair, read_pairs
from accls_train.examples import Example, encode, prompts_of
from accls_train.finetune import model_base
from accls_train.modeling import load_trainable, save_weights
from accls_train.scoring import RewardWeights, reward
from accls_train.tokenizer import load_tokenizer
from accls_train.trainer import LoopSetup, run_steps

__all__ = ["RewardError", "main", "reward", "run_reward", "sample", "train_round"]


class RewardError(Exception):
    """The stage cannot run: no model, no usable prompts."""


def sample(
    model: Any, tokenizer: Any, prompts: Sequence[str], n: int, temperature: float
) -> list[list[str]]:
    """`n` completions per prompt (greedy when temperature is 0), first line each."""
    import torch

    device = next(model.parameters()).device
    tokenizer.padding_side = "left"  # generation continues every prompt's last token
    out: list[list[str]] = []
    model.eval()
    for start in range(0, len(prompts), 8):
        part = list(prompts[start : start + 8])
        enc = tokenizer(
            part, return_tensors="pt", padding=True, add_special_tokens=False
        ).to(device)
        with torch.no_grad():
            ids = model.generate(
                **enc,
                do_sample=temperature > 0,
                temperature=temperature if temperature > 0 else None,
                top_p=None,
                top_k=None,
                num_return_sequences=n,
                max_new_tokens=64,
                eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id,
            )
        texts = tokenizer.batch_decode(
            ids[:, enc["input_ids"].shape[1] :], skip_special_tokens=True
        )
        for i in range(len(part)):
            out.append([t.split("\n", 1)[0] for t in texts[i * n : (i + 1) * n]])
    model.train()
    tokenizer.padding_side = "right"
    return out


def _mean_greedy(
    model: Any, tokenizer: Any, examples: Sequence[Example], weights: RewardWeights
) -> float:
    answers = sample(model, tokenizer, [e.prompt for e in examples], 1, 0.0)
    scores = [
        reward(e.pair, a[0], weights) for e, a in zip(examples, answers, strict=True)
    ]
    return sum(scores) / len(scores)


def train_round(
    config: TrainConfig,
    model: Any,
    tokenizer: Any,
    pool: Sequence[Example],
    out: Path,
    round_index: int,
    progress: bool = True,
) -> dict[str, Any]:
    """One round: sample, score, keep the best, train; returns the round's figures."""
    r = config.reward
    weights = RewardWeights(r.compiles, r.race_free, r.jaccard)
    chosen = random.Random(config.training.seed + round_index).sample(
        list(pool), min(r.prompts, len(pool))
    )
    before = _mean_greedy(model, tokenizer, chosen, weights)
    candidates = sample(
        model, tokenizer, [e.prompt for e in chosen], r.samples, r.temperature
    )
    kept: list[Pair] = []
    sampled: list[float] = []
    for example, texts in zip(chosen, candidates, strict=True):
        scored = [(reward(example.pair, t, weights), t) for t in texts]
        sampled.extend(s for s, _ in scored)
        best, text = max(scored)
        if best >= r.threshold:
            kept.append(replace(example.pair, pragma=text))
    after = before
    if kept:
        by_id = {e.pair.id: e.prompt for e in chosen}
        encoded = encode(
            kept, [by_id[p.id] for p in kept], tokenizer, config.training.max_seq_length
        )
        micro = config.training.micro_batch_size
        setup = LoopSetup(
            training=replace(
                config.training,
                batch_size=min(micro, len(encoded.examples)),
                micro_batch_size=min(micro, len(encoded.examples)),
                warmup_steps=0,
                # Small steps: the kept answers are the model's own, few and alike.
                learning_rate=config.training.learning_rate / 10,
                checkpoint_every=max(1, r.steps),
            ),
            examples=encoded.examples,
            out=out / f"round-{round_index}",
            total_steps=r.steps,
            stage=f"reward-{round_index}",
            progress=progress,
        )
        run_steps(setup, model, tokenizer)
        after = _mean_greedy(model, tokenizer, chosen, weights)
    return {
        "stage": "reward",
        "round": round_index,
        "prompts": len(chosen),
        "mean_sampled_reward": sum(sampled) / len(sampled),
        "kept": len(kept),
        "mean_reward_before": before,
        "mean_reward_after": after,
    }


def _model_folder(init: Path) -> Path:
    folder = init / "final" if (init / "final").is_dir() else init
    if (
        not (folder / "config.json").is_file()
        and not (folder / "adapter_config.json").is_file()
    ):
        raise RewardError(f"no model in {init} (expected final/ or config.json)")
    return folder


def _summary(init: Path) -> dict[str, Any]:
    for folder in (init, init.parent):
        file = folder / "run.json"
        if file.is_file():
            data = json.loads(file.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
    return {}


def run_reward(
    config: TrainConfig,
    init: Path,
    pairs: Sequence[Pair],
    out: Path,
    *,
    resume: bool = False,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """All rounds from the model in `init`; writes `out/final` and `out/run.json`."""
    done = sorted((out / "rounds").glob("*/done.json")) if resume else []
    if not resume and (out / "rounds").is_dir():
        raise RewardError(f"{out} holds rounds: pass --resume or another --out")
    start = _model_folder(init)
    figures: list[dict[str, Any]] = []
    if done:
        start = done[-1].parent
        figures = [json.loads(d.read_text(encoding="utf-8")) for d in done]
    tokenizer = load_tokenizer(start)
    adapter_base = model_base(start)
    base = adapter_base or (str(start) if config.lora.enabled else None)
    model = load_trainable(config, tokenizer, start=start, base=base)
    encoded = encode(
        pairs, prompts_of(pairs), tokenizer, config.training.max_seq_length
    )
    if not encoded.examples:
        raise RewardError("no usable training prompts")
    for index in range(len(figures), config.reward.rounds):
        record = train_round(
            config, model, tokenizer, encoded.examples, out, index, progress
        )
        folder = out / "rounds" / f"{index:03d}"
        save_weights(model, folder)
        tokenizer.save_pretrained(str(folder))
        with (out / "metrics.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        (folder / "done.json").write_text(json.dumps(record) + "\n", "utf-8")
        figures.append(record)
    final = out / "final"
    save_weights(model, final)
    tokenizer.save_pretrained(str(final))
    summary = {**_summary(init), "stage": "reward", "base": base, "reward": figures}
    (out / "run.json").write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    return figures


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="accls-train reward",
        description="Rejection-sampling fine-tuning with compile/race/Jaccard reward.",
    )
    parser.add_argument("--config", required=True, help="TOML file ([reward] section)")
    parser.add_argument("--model", required=True, help="run folder or model folder")
    parser.add_argument("--data", required=True, help="pairs JSONL (its train split)")
    parser.add_argument("--out", required=True, help="run folder for this stage")
    parser.add_argument("--resume", action="store_true", help="skip finished rounds")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stage; 0 on success, 2 with a one-line error otherwise."""
    args = _parser().parse_args(argv)
    try:
        config = load_config(args.config)
        pairs = [p for p in read_pairs(args.data) if p.split == "train"]
        figures = run_reward(
            config,
            Path(args.model),
            pairs,
            Path(args.out),
            resume=args.resume,
            progress=not args.no_progress,
        )
    except (ConfigError, DatasetError, RewardError, OSError, ValueError) as exc:
        print(f"accls-train reward: error: {exc}", file=sys.stderr)
        return 2
    for f in figures:
        print(
            f"reward: round {f['round']}: mean reward {f['mean_reward_before']:.3f}"
            f" -> {f['mean_reward_after']:.3f} ({f['kept']}/{f['prompts']} kept)"
        )
    return 0
