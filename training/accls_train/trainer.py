"""The training loop of finetune, reward and retrain: steps, checkpoints, logs."""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accls_train.config import TrainingConfig
from accls_train.examples import IGNORE, Example, collate
from accls_train.modeling import save_weights
from accls_train.syntax import SyntaxTerm, teacher_forced_pragmas

__all__ = [
    "LoopResult",
    "LoopSetup",
    "example_losses",
    "latest_checkpoint",
    "run_steps",
    "valid_loss",
]

KEEP_CHECKPOINTS = 2


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopSetup:
    """Everything one run of the loop needs besides the model and tokenizer."""

    training: TrainingConfig
    examples: tuple[Example, ...]
    valid: tuple[Example, ...] = ()
    out: Path  # the run folder: checkpoints/, metrics.jsonl
    total_steps: int
    syntax: SyntaxTerm | None = None
    syntax_every: int = 1
    stage: str = "finetune"  # tags metrics lines; reward and retrain reuse the loop
    progress: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopResult:
    """What the loop measured."""

    steps: int
    losses: tuple[float, ...]  # training loss of each step run here (syntax term in)
    ces: tuple[float, ...]  # plain cross-entropy of each step run here
    valid_loss: float | None
    tokens: int
    seconds: float
    peak_mem_mb: float


def example_losses(logits: Any, labels: Any) -> Any:
    """Mean token cross-entropy of each row's completion (labels != -100)."""
    import torch.nn.functional as F

    shift_logits = logits[:, :-1, :].float()
    shift_labels = labels[:, 1:]
    tokens = F.cross_entropy(
        shift_logits.reshape(-1, shift_logits.size(-1)),
        shift_labels.reshape(-1),
        ignore_index=IGNORE,
        reduction="none",
    ).view(shift_labels.shape)
    mask = (shift_labels != IGNORE).float()
    return (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


def latest_checkpoint(out: Path) -> Path | None:
    """The newest `checkpoints/step-N` folder of a run, if any."""
    found = sorted((out / "checkpoints").glob("step-*"))
    return found[-1] if found else None


def _order(n: int, seed: int, epoch: int) -> list[int]:
    order = list(range(n))
    random.Random(seed * 1_000_003 + epoch).shuffle(order)
    return order


def _batch(setup: LoopSetup, step: int) -> list[Example]:
    """The examples of optimiser step `step`: a seeded, resumable stream of epochs."""
    n = len(setup.examples)
    size = setup.training.batch_size
    out: list[Example] = []
    orders: dict[int, list[int]] = {}
    for k in range(step * size, (step + 1) * size):
        epoch, index = divmod(k, n)
        if epoch not in orders:
            orders[epoch] = _order(n, setup.training.seed, epoch)
        out.append(setup.examples[orders[epoch][index]])
    return out


def valid_loss(
    model: Any, examples: Sequence[Example], pad_id: int, micro: int
) -> float:
    """Mean completion cross-entropy over `examples` (at most 256 of them)."""
    import torch

    chosen = list(examples)[:256]
    if not chosen:
        return math.nan
    device = next(model.parameters()).device
    model.eval()
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(chosen), micro):
            part = chosen[start : start + micro]
            batch = {k: v.to(device) for k, v in collate(part, pad_id).items()}
            logits = model(
                input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
            ).logits
            total += float(example_losses(logits, batch["labels"]).sum())
    model.train()
    return total / len(chosen)


def _log(out: Path, record: dict[str, Any]) -> None:
    with (out / "metrics.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")


def _trim_log(out: Path, stage: str, after: int) -> None:
    """Drop this stage's log lines past a resumed checkpoint (they are redone)."""
    file = out / "metrics.jsonl"
    if not file.is_file():
        return
    kept = []
    for line in file.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("stage") == stage and int(record.get("step", 0)) > after:
            continue
        kept.append(line)
    file.write_text("".join(k + "\n" for k in kept), encoding="utf-8")


def _save(
    out: Path, step: int, model: Any, optimizer: Any, scheduler: Any, syntax: Any
) -> None:
    import torch

    folder = out / "checkpoints" / f"step-{step:06d}"
    save_weights(model, folder)
    torch.save(
        {
            "step": step,
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "rng": torch.get_rng_state(),
            "syntax": dict(syntax.flags) if syntax is not None else {},
        },
        folder / "trainer.pt",
    )
    for old in sorted((out / "checkpoints").glob("step-*"))[:-KEEP_CHECKPOINTS]:
        shutil.rmtree(old, ignore_errors=True)


def _micro_loss(
    setup: LoopSetup, model: Any, tokenizer: Any, part: list[Example], check: bool
) -> tuple[Any, Any, float | None]:
    """Weighted loss of one micro-batch, its plain CE, and the non-compiling rate."""
    import torch

    device = next(model.parameters()).device
    batch = {k: v.to(device) for k, v in collate(part, tokenizer.pad_token_id).items()}
    logits = model(
        input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]
    ).logits
    per_example = example_losses(logits, batch["labels"])
    rate = None
    if setup.syntax is not None and check:
        with torch.no_grad():
            texts = teacher_forced_pragmas(part, logits, batch["labels"], tokenizer)
        rate = setup.syntax.refresh(part, texts)
    factors = setup.syntax.factors(part) if setup.syntax else [1.0] * len(part)
    weights = torch.tensor([e.pair.weight for e in part], device=device)
    scale = torch.tensor(factors, device=device) * weights
    return (scale * per_example).sum(), (weights * per_example).sum(), rate


def run_steps(
    setup: LoopSetup, model: Any, tokenizer: Any, resume: Path | None = None
) -> LoopResult:
    """Train `model` up to `setup.total_steps` steps, from `resume` if given."""
    import torch
    from accelerate import Accelerator
    from tqdm import tqdm
    from transformers import get_cosine_schedule_with_warmup
    from transformers.utils import logging as hf_logging

    if not sys.stderr.isatty():
        quiet: Any = hf_logging.disable_progress_bar
        quiet()  # "Writing model shards" bars in logs

    t = setup.training
    # Under `accelerate launch` each process takes its share of every batch and
    # DDP averages the gradients; alone, this is a plain loop on the best device.
    accelerator = Accelerator()
    main = accelerator.is_main_process
    setup.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(t.seed)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        params, lr=t.learning_rate, weight_decay=t.weight_decay
    )
    inner = model
    model, optimizer = accelerator.prepare(model, optimizer)
    scheduler = get_cosine_schedule_with_warmup(
        optimizer, min(t.warmup_steps, setup.total_steps // 4), setup.total_steps
    )
    start = 0
    if resume is not None:
        state = torch.load(resume / "trainer.pt", weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["rng"])
        if setup.syntax is not None:
            setup.syntax.flags.update(state["syntax"])
        start = int(state["step"])
    if main:
        _trim_log(setup.out, setup.stage, start)
    if torch.cuda.is_available():
        torch.cuda.reset_peak_memory_stats()
    model.train()
    losses: list[float] = []
    ces: list[float] = []
    tokens = 0
    began = time.monotonic()
    bar = tqdm(
        total=setup.total_steps,
        initial=start,
        desc=setup.stage,
        unit="step",
        # A bar only on a terminal: in a log file (make model, CI) it is noise.
        disable=not (setup.progress and main and sys.stderr.isatty()),
        dynamic_ncols=True,
    )
    for step in range(start, setup.total_steps):
        examples = _batch(setup, step)[
            accelerator.process_index :: accelerator.num_processes
        ]
        total_weight = sum(e.pair.weight for e in examples) or 1.0
        check = setup.syntax is not None and step % setup.syntax_every == 0
        step_loss = step_ce = 0.0
        rates: list[float] = []
        for begin in range(0, len(examples), t.micro_batch_size):
            part = examples[begin : begin + t.micro_batch_size]
            loss, ce, rate = _micro_loss(setup, model, tokenizer, part, check)
            accelerator.backward(loss / total_weight)
            step_loss += float(loss.detach()) / total_weight
            step_ce += float(ce.detach()) / total_weight
            tokens += sum(len(e.input_ids) for e in part)
            if rate is not None:
                rates.append(rate)
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(step_loss)
        ces.append(step_ce)
        done = step + 1
        bar.update(1)
        bar.set_postfix(loss=f"{step_loss:.3f}")
        if main and (done % t.log_every == 0 or done == setup.total_steps or rates):
            record: dict[str, Any] = {
                "stage": setup.stage,
                "step": done,
                "loss": round(step_loss, 5),
                "ce": round(step_ce, 5),
                "lr": scheduler.get_last_lr()[0],
                "tokens_per_s": round(tokens / max(time.monotonic() - began, 1e-9)),
            }
            if rates:
                record["noncompiling"] = round(sum(rates) / len(rates), 4)
            _log(setup.out, record)
        if done % t.checkpoint_every == 0 or done == setup.total_steps:
            accelerator.wait_for_everyone()
            if main:
                _save(setup.out, done, inner, optimizer, scheduler, setup.syntax)
    bar.close()
    seconds = time.monotonic() - began
    final_valid = None
    if setup.valid and main:
        final_valid = valid_loss(
            inner, setup.valid, tokenizer.pad_token_id, t.micro_batch_size
        )
        _log(
            setup.out,
            {
                "stage": setup.stage,
                "step": setup.total_steps,
                "valid_loss": final_valid,
            },
        )
    peak = (
        torch.cuda.max_memory_allocated() / 2**20 if torch.cuda.is_available() else 0.0
    )
    return LoopResult(
        steps=setup.total_steps - start,
        losses=tuple(losses),
        ces=tuple(ces),
        valid_loss=final_valid,
        tokens=tokens,
        seconds=seconds,
        peak_mem_mb=peak,
    )
