"""Training examples: a pair's prompt and pragma as token ids, loss on the pragma."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from accls.suggest import Dialect, SuggestOptions, Target
from accls.suggest.prompt import prompt_for_text

from accls_train.dataset import Pair

__all__ = [
    "Encoded",
    "Example",
    "collate",
    "completion_text",
    "encode",
    "options_of",
    "prompt_ids",
    "prompts_of",
]

IGNORE = -100
"""Label of a token that carries no loss (the prompt, the padding)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Example:
    """One pair as tokens: `prompt_len` prompt ids, then the pragma and EOS."""

    pair: Pair
    prompt: str
    input_ids: tuple[int, ...]
    prompt_len: int


@dataclass(frozen=True, slots=True)
class Encoded:
    """The examples that fit, and how many pairs were left out and why."""

    examples: tuple[Example, ...]
    no_loop: int  # the pair's line holds no loop the frontend finds
    too_long: int  # prompt + pragma over max_seq_length tokens


def options_of(pair: Pair) -> SuggestOptions:
    """The suggest options a pair was written for."""
    return SuggestOptions(dialect=Dialect(pair.model), target=Target(pair.target))


def completion_text(pair: Pair) -> str:
    """What the model must write after the prompt: the pragma and a newline."""
    return " ".join(pair.pragma.split()) + "\n"


def prompt_ids(tokenizer: Any, prompt: str) -> list[int]:
    """Prompt tokens exactly as the transformers backend makes them (no BOS added)."""
    return list(tokenizer(prompt, add_special_tokens=False)["input_ids"])


def prompts_of(pairs: Sequence[Pair]) -> list[str | None]:
    """The prompt serving would build for each pair's loop; None if no loop there."""
    return [
        prompt_for_text(pair.mcu, pair.line, options_of(pair), pair.path)
        for pair in pairs
    ]


def encode(
    pairs: Sequence[Pair],
    prompts: Sequence[str | None],
    tokenizer: Any,
    max_len: int,
) -> Encoded:
    """Tokenise every pair with its prompt (from `prompts_of`) and its pragma."""
    out: list[Example] = []
    no_loop = too_long = 0
    eos = int(tokenizer.eos_token_id)
    for pair, prompt in zip(pairs, prompts, strict=True):
        if prompt is None:
            no_loop += 1
            continue
        head = prompt_ids(tokenizer, prompt)
        tail = tokenizer(completion_text(pair), add_special_tokens=False)["input_ids"]
        ids = [*head, *tail, eos]
        if len(ids) > max_len:
            # Cutting would drop either the loop or the answer: leave it out.
            too_long += 1
            continue
        out.append(
            Example(
                pair=pair, prompt=prompt, input_ids=tuple(ids), prompt_len=len(head)
            )
        )
    return Encoded(tuple(out), no_loop, too_long)


def collate(batch: Sequence[Example], pad_id: int) -> dict[str, Any]:
    """Right-padded tensors: input ids, attention mask, labels (-100 off the pragma)."""
    import torch

    width = max(len(e.input_ids) for e in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    labels = torch.full((len(batch), width), IGNORE, dtype=torch.long)
    for row, example in enumerate(batch):
        n = len(example.input_ids)
        ids[row, :n] = torch.tensor(example.input_ids)
        mask[row, :n] = 1
        labels[row, example.prompt_len : n] = torch.tensor(
            example.input_ids[example.prompt_len :]
        )
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}
