"""Training configuration: a TOML file read into frozen dataclasses.

Every default is the seed recipe (ACCeLLiuM): QLoRA 4-bit, rank 64, alpha 16,
q/k/v projections, dropout 0.1, batch 128, learning rate 3e-5, 2048 tokens, and
a syntax-correctness term with lambda 0.3.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

__all__ = [
    "ConfigError",
    "LoraConfig",
    "ModelConfig",
    "Quantization",
    "RewardConfig",
    "SyntaxConfig",
    "TrainConfig",
    "TrainingConfig",
    "load_config",
    "parse_config",
]


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message is one line."""


class Quantization(StrEnum):
    """How the frozen base weights are stored during LoRA training."""

    NONE = "none"
    FOUR_BIT = "4bit"  # QLoRA: bitsandbytes NF4, only with CUDA


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelConfig:
    """The base model: a hub id or path, or a small Llama built from scratch."""

    base: str = "meta-llama/Llama-3.1-8B"  # "" = from scratch with the sizes below
    layers: int = 4
    hidden: int = 256
    heads: int = 4
    intermediate: int = 640
    context: int = 1024
    vocab_size: int = 4096  # of the BPE tokenizer trained for a from-scratch model

    @property
    def from_scratch(self) -> bool:
        """Whether the model (and its tokenizer) are built here rather than loaded."""
        return not self.base


@dataclass(frozen=True, slots=True, kw_only=True)
class LoraConfig:
    """Low-rank adapters; off means every weight trains (the from-scratch case)."""

    enabled: bool = True
    r: int = 64
    alpha: int = 16
    dropout: float = 0.1
    targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj")
    quantization: Quantization = Quantization.FOUR_BIT


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainingConfig:
    """The optimisation: batch, rate, length and how long, with checkpoints."""

    batch_size: int = 128  # examples per optimiser step
    micro_batch_size: int = 4  # per forward pass; the rest is gradient accumulation
    learning_rate: float = 3e-5
    weight_decay: float = 0.0
    warmup_steps: int = 10
    max_seq_length: int = 2048
    epochs: float = 3.0
    max_steps: int = 0  # > 0 overrides epochs
    checkpoint_every: int = 50
    log_every: int = 5
    seed: int = 0

    @property
    def accumulation(self) -> int:
        """Micro-batches per optimiser step."""
        return max(1, self.batch_size // self.micro_batch_size)


@dataclass(frozen=True, slots=True, kw_only=True)
class SyntaxConfig:
    """The syntax term: CE + lambda * CE of examples whose pragma does not compile."""

    weight: float = 0.3  # lambda
    every: int = 1  # compile-check the model's pragmas every this many steps
    cc: str = "gcc"


@dataclass(frozen=True, slots=True, kw_only=True)
class RewardConfig:
    """Rejection-sampling fine-tuning: how many candidates, which to keep."""

    prompts: int = 64  # training prompts sampled per round
    samples: int = 4  # candidates per prompt
    temperature: float = 0.8
    threshold: float = 0.6  # keep the best candidate only if it scores at least this
    rounds: int = 1
    steps: int = 20  # optimiser steps on the kept candidates per round
    compiles: float = 0.3  # weights of the reward's three terms (sum to 1)
    race_free: float = 0.3
    jaccard: float = 0.4


@dataclass(frozen=True, slots=True, kw_only=True)
class TrainConfig:
    """A whole configuration file."""

    name: str = "accls-seed"
    model: ModelConfig = field(default_factory=ModelConfig)
    lora: LoraConfig = field(default_factory=LoraConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    syntax: SyntaxConfig = field(default_factory=SyntaxConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)


def _section(cls: type[Any], raw: object, where: str) -> Any:
    """Build one dataclass section from a TOML table, type-checking each key."""
    if not isinstance(raw, dict):
        raise ConfigError(f"[{where}] must be a table")
    known = {f.name: f for f in fields(cls)}
    values: dict[str, object] = {}
    defaults = cls()
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"[{where}] unknown key {key!r}")
        default = getattr(defaults, key)
        values[key] = _coerce(default, value, f"{where}.{key}")
    return cls(**values)


def _coerce(default: object, value: object, where: str) -> object:
    """`value` converted to the type of `default`, or a one-line error."""
    if isinstance(default, StrEnum):
        try:
            return type(default)(str(value))
        except ValueError:
            allowed = ", ".join(m.value for m in type(default))
            raise ConfigError(f"{where} must be one of {allowed}") from None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be an integer")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where} must be a number")
        return float(value)
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of strings")
        return tuple(value)
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a string")
    return value


def _validate(config: TrainConfig) -> None:
    t = config.training
    checks = (
        (bool(config.name.strip()), "name must not be empty"),
        (t.batch_size >= 1, "training.batch_size must be >= 1"),
        (
            1 <= t.micro_batch_size <= t.batch_size,
            "training.micro_batch_size must be between 1 and batch_size",
        ),
        (t.learning_rate > 0, "training.learning_rate must be > 0"),
        (t.max_seq_length >= 64, "training.max_seq_length must be >= 64"),
        (t.epochs > 0 or t.max_steps > 0, "training needs epochs > 0 or max_steps"),
        (t.checkpoint_every >= 1, "training.checkpoint_every must be >= 1"),
        (config.lora.r >= 1, "lora.r must be >= 1"),
        (0 <= config.lora.dropout < 1, "lora.dropout must be in [0, 1)"),
        (
            not config.lora.enabled or bool(config.lora.targets),
            "lora.targets must name at least one module",
        ),
        (config.syntax.weight >= 0, "syntax.weight must be >= 0"),
        (config.syntax.every >= 1, "syntax.every must be >= 1"),
        (config.reward.samples >= 1, "reward.samples must be >= 1"),
        (config.reward.temperature > 0, "reward.temperature must be > 0"),
        (config.model.hidden % config.model.heads == 0, "model.hidden % heads != 0"),
        (
            config.model.context >= t.max_seq_length or not config.model.from_scratch,
            "model.context must be >= training.max_seq_length",
        ),
    )
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)


_SECTIONS: dict[str, type[Any]] = {
    "model": ModelConfig,
    "lora": LoraConfig,
    "training": TrainingConfig,
    "syntax": SyntaxConfig,
    "reward": RewardConfig,
}


def parse_config(raw: dict[str, Any]) -> TrainConfig:
    """A TrainConfig from a parsed TOML document; raises ConfigError."""
    values: dict[str, object] = {}
    for key, value in raw.items():
        if key == "name":
            if not isinstance(value, str):
                raise ConfigError("name must be a string")
            values["name"] = value
        elif key in _SECTIONS:
            values[key] = _section(_SECTIONS[key], value, key)
        else:
            raise ConfigError(f"unknown top-level key {key!r}")
    config = TrainConfig(**values)  # type: ignore[arg-type]
    _validate(config)
    return config


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a TOML configuration file; raises ConfigError."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        return parse_config(raw)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
