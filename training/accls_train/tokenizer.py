"""A byte-level BPE tokenizer trained on our own prompts, for from-scratch models."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["BOS", "EOS", "PAD", "load_tokenizer", "train_tokenizer"]

BOS = "<s>"
EOS = "</s>"
PAD = "<pad>"


def train_tokenizer(texts: Iterable[str], vocab_size: int, out: Path) -> Any:
    """Train a byte-level BPE on `texts`, save it as a HF fast tokenizer in `out`."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    fast: Any = transformers.PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    # Byte-level: every C text round-trips, whatever characters it holds.
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=[PAD, BOS, EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(texts, trainer=trainer)
    tokenizer = fast(
        tokenizer_object=bpe,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        clean_up_tokenization_spaces=False,
    )
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(out))
    return tokenizer


def load_tokenizer(path: str | Path) -> Any:
    """A tokenizer from a directory or hub id, with a pad token guaranteed."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(path))
    if tokenizer.pad_token is None:
        # Llama-style tokenizers ship without one; padding is masked out anyway.
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer
