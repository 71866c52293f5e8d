"""The in-process backend: a local causal LM through transformers, CPU or GPU.

torch and transformers are imported in the constructor only, so the rest of
accls (and the language server) runs without the `model` extra installed.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from accls.suggest.backends.base import (
    BackendError,
    BackendSettings,
    Candidate,
    StructuredOutputs,
)
from accls.suggest.backends.constrained import (
    PrefixConstraint,
    TokenTable,
    regex_for_prompt,
)

__all__ = ["DEFAULT_MODEL_DIR", "TransformersBackend"]

DEFAULT_MODEL_DIR = "models/accls-tiny"
"""Where `accls-train export` puts the tiny model; used when no path is set."""


def _import_torch() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise BackendError(
            f"the transformers backend needs torch and transformers "
            f"(pip install 'accls[model]'): {exc}"
        ) from None
    # stderr belongs to our one-line warnings: no download or weight-loading bars.
    hf_logging: Any = transformers.utils.logging
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    return torch, transformers


def _pick_device(torch: Any, wanted: str) -> str:
    if wanted == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if wanted.startswith("cuda") and not torch.cuda.is_available():
        raise BackendError("device 'cuda' asked for, but torch sees no GPU")
    return wanted


_SMALL_MODEL = 50_000_000
"""Parameters below which one CPU thread decodes faster than several."""


def _cpu_threads(torch: Any, threads: int, model: Any) -> None:
    # A small model's per-token matrices are too small to split: extra threads
    # only add synchronisation (measured 6x slower with 2 threads on 2 busy cores).
    if threads <= 0:
        size = sum(p.numel() for p in model.parameters())
        threads = 1 if size < _SMALL_MODEL else 0
    if threads > 0:
        torch.set_num_threads(threads)


class TransformersBackend:
    """Pragma completions from a local model directory, batched and constrained."""

    name = "transformers"

    def __init__(self, settings: BackendSettings) -> None:
        torch, transformers = _import_torch()
        self._torch = torch
        self._lock = threading.Lock()
        self.settings = settings
        path = Path(settings.path or DEFAULT_MODEL_DIR)
        if not (path / "config.json").is_file():
            raise BackendError(f"no model at {path} (expected {path}/config.json)")
        self.device = _pick_device(torch, settings.device)
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(str(path))
            dtype = torch.bfloat16 if self.device.startswith("cuda") else torch.float32
            model = transformers.AutoModelForCausalLM.from_pretrained(
                str(path), dtype=dtype
            )
        except (OSError, ValueError, KeyError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise BackendError(f"cannot load the model at {path}: {first}") from None
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        # Left padding keeps every prompt's last token next to the generated ones.
        tokenizer.padding_side = "left"
        tokenizer.truncation_side = "left"  # the end (`pragma:`) must survive
        self.tokenizer = tokenizer
        self.model = model.to(self.device).eval()
        if self.device == "cpu":
            _cpu_threads(torch, settings.threads, model)
        config = model.config
        self.context = int(
            getattr(config, "max_position_embeddings", None)
            or getattr(config, "n_positions", None)
            or 1024
        )
        vocab = int(model.get_output_embeddings().weight.shape[0])
        self.table = TokenTable.from_tokenizer(tokenizer, vocab)
        self.constraint = PrefixConstraint(self.table)

    def complete(self, prompts: Sequence[str], n: int) -> list[list[Candidate]]:
        """`n` candidates per prompt (1 when greedy), grammar-constrained unless off."""
        constrained = self.settings.structured_outputs is not StructuredOutputs.OFF
        patterns = [regex_for_prompt(p) if constrained else None for p in prompts]
        return self.generate(
            prompts,
            n,
            temperature=self.settings.temperature,
            max_tokens=self.settings.max_tokens,
            patterns=patterns,
        )

    def generate(
        self,
        prompts: Sequence[str],
        n: int,
        *,
        temperature: float,
        max_tokens: int,
        patterns: Sequence[str | None],
        stop: str = "\n",
    ) -> list[list[Candidate]]:
        """The general form: per-prompt regexes (None: free text), one stop string."""
        out: list[list[Candidate]] = []
        size = max(1, self.settings.batch_size)
        with self._lock:  # one generate at a time: the model and caches are shared
            for start in range(0, len(prompts), size):
                out.extend(
                    self._batch(
                        prompts[start : start + size],
                        n,
                        temperature,
                        max_tokens,
                        patterns[start : start + size],
                        stop,
                    )
                )
        return out

    def _batch(
        self,
        prompts: Sequence[str],
        n: int,
        temperature: float,
        max_tokens: int,
        patterns: Sequence[str | None],
        stop: str,
    ) -> list[list[Candidate]]:
        torch = self._torch
        sample = temperature > 0
        per = max(1, n) if sample else 1  # greedy decoding has one answer
        limit = max(8, self.context - max_tokens)
        enc = self.tokenizer(
            list(prompts),
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=limit,
            add_special_tokens=False,
        ).to(self.device)
        width = int(enc["input_ids"].shape[1])
        rows = [pat for pat in patterns for _ in range(per)]
        processor = _logits_processor(self, rows, width, max_tokens)
        stopper = _stopping(self, width, stop)
        kwargs: dict[str, Any] = {
            "max_new_tokens": max_tokens,
            "do_sample": sample,
            "num_return_sequences": per,
            "logits_processor": [processor],
            "stopping_criteria": [stopper],
            "return_dict_in_generate": True,
            "output_scores": True,
            "pad_token_id": self.tokenizer.pad_token_id,
            "eos_token_id": self.tokenizer.eos_token_id,
        }
        if sample:
            kwargs["temperature"] = temperature
            kwargs["top_k"] = 0
        with torch.inference_mode():
            result = self.model.generate(**enc, **kwargs)
        # Log-probabilities of the chosen tokens under the (constrained) scores.
        steps = torch.stack(result.scores, dim=1).float().log_softmax(dim=-1)
        new = result.sequences[:, width:]
        chosen = steps.gather(-1, new[:, : steps.shape[1]].unsqueeze(-1)).squeeze(-1)
        candidates: list[list[Candidate]] = [[] for _ in prompts]
        special = self.table.eos_ids | {self.tokenizer.pad_token_id}
        for row in range(new.shape[0]):
            ids = new[row].tolist()
            text = ""
            logprobs: list[float] = []
            for step, token in enumerate(ids):
                if token in special:
                    break
                text += self.table.texts[token] if token < len(self.table.texts) else ""
                value = float(chosen[row, step])
                logprobs.append(value if math.isfinite(value) else -1e4)
                if stop and stop in text:
                    text = text[: text.index(stop)]
                    break
            score = sum(logprobs) / len(logprobs) if logprobs else -1e4
            candidates[row // per].append(Candidate(text.strip(), score))
        return candidates


def _logits_processor(
    backend: TransformersBackend,
    patterns: Sequence[str | None],
    width: int,
    max_tokens: int,
) -> Any:
    """Mask every token that would take a row's completion out of its regex.

    The budget `max_tokens` is passed on: near its end only tokens that can
    still close the pragma in time remain.
    """
    torch = backend._torch
    table = backend.table
    constraint = backend.constraint

    def process(input_ids: Any, scores: Any) -> Any:
        # One scatter for the whole batch: a write per row would launch a
        # kernel per row on a GPU.
        generated = input_ids[:, width:].tolist()
        rows: list[int] = []
        cols: list[int] = []
        free: list[int] = []
        for row, pattern in enumerate(patterns):
            if pattern is None:
                free.append(row)
                continue
            left = max_tokens - len(generated[row])
            text = table.text_of(generated[row])
            allowed = constraint.allowed(pattern, text, left)
            rows.extend([row] * len(allowed))
            cols.extend(allowed)
        mask = torch.full_like(scores, float("-inf"))
        if rows:
            index = torch.tensor([rows, cols], device=scores.device)
            mask[index[0], index[1]] = 0.0
        if free:
            mask[torch.tensor(free, device=scores.device)] = 0.0
        return scores + mask

    return process


def _stopping(backend: TransformersBackend, width: int, stop: str) -> Any:
    """Per-row stop once the generated text holds the stop string (a newline)."""
    torch = backend._torch
    table = backend.table

    def done(input_ids: Any, scores: Any, **_: Any) -> Any:
        flags = [
            bool(stop) and stop in table.text_of(input_ids[row, width:].tolist())
            for row in range(input_ids.shape[0])
        ]
        return torch.tensor(flags, dtype=torch.bool, device=input_ids.device)

    return done
