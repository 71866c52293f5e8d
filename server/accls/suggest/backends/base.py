"""What every model backend is: settings, candidates and the one Protocol method."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

__all__ = [
    "Backend",
    "BackendError",
    "BackendKind",
    "BackendSettings",
    "Candidate",
    "StructuredOutputs",
]


class BackendKind(StrEnum):
    """Where model candidates come from; `analysis` means no model at all."""

    ANALYSIS = "analysis"
    TRANSFORMERS = "transformers"
    VLLM = "vllm"
    FAKE = "fake"


class StructuredOutputs(StrEnum):
    """How a vLLM request asks for grammar-constrained decoding."""

    CURRENT = "current"  # "structured_outputs": {"regex": ...} (vLLM >= 0.12)
    LEGACY = "legacy"  # "guided_regex": ... (vLLM < 0.12)
    OFF = "off"


@dataclass(frozen=True, slots=True, kw_only=True)
class BackendSettings:
    """How to reach the model: one frozen value, read from the CLI or LSP settings."""

    kind: BackendKind = BackendKind.ANALYSIS
    url: str = "http://127.0.0.1:8000/v1"  # vllm: the OpenAI-compatible base URL
    served_model: str = (
        ""  # vllm: the served model name ("" = the server's first model)
    )
    path: str = ""  # transformers: a local model directory ("" = models/accls-tiny)
    chat: bool = False  # vllm: /v1/chat/completions instead of /v1/completions
    n: int = 4  # candidates per loop
    temperature: float = 0.0  # 0 = greedy (then n collapses to 1 in-process)
    max_tokens: int = 96
    connect_timeout: float = 2.0  # seconds
    read_timeout: float = 30.0  # seconds, for the whole batched request
    retries: int = 2  # extra tries on 5xx and connection resets, with backoff
    structured_outputs: StructuredOutputs = StructuredOutputs.CURRENT
    device: str = "auto"  # transformers: auto | cpu | cuda
    batch_size: int = 32  # transformers: prompts per generate() call
    candidates: tuple[str, ...] = ()  # fake: the completions it returns per prompt
    chat_concurrency: int = 8  # vllm chat: requests in flight at once
    threads: int = 0  # transformers on CPU: torch threads (0 = 1 for small models)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One model completion for one prompt, with the model's score (mean logprob)."""

    text: str
    score: float = 0.0


class BackendError(Exception):
    """The model could not answer: unreachable, timed out, or returned garbage."""


class Backend(Protocol):
    """A source of pragma candidates: one batched call for all loops of a file."""

    name: str

    def complete(self, prompts: Sequence[str], n: int) -> list[list[Candidate]]:
        """`n` candidates for each prompt, in order; raises BackendError."""
        ...
