"""The vLLM backend: its OpenAI-compatible HTTP API, batched and grammar-constrained.

Completions (`/v1/completions`) take a list of prompts, so all loops of a file
go in one request with `n` candidates each. The chat API takes one
conversation per request: those are sent concurrently from a bounded pool
(`chat_concurrency`). Decoding is constrained to the pragma regex with
`"structured_outputs": {"regex": ...}` (vLLM >= 0.12) or, behind a setting,
the older `"guided_regex"` field.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from accls.suggest.backends.base import (
    BackendError,
    BackendSettings,
    Candidate,
    StructuredOutputs,
)
from accls.suggest.backends.constrained import regex_for_prompt

__all__ = ["VllmBackend"]

_BACKOFF_S = 0.25
"""The first retry waits this long; each later one twice as long."""
_SYSTEM = "Answer with one OpenACC or OpenMP pragma line for the loop."


def _structured(settings: BackendSettings, pattern: str) -> dict[str, Any]:
    if settings.structured_outputs is StructuredOutputs.CURRENT:
        return {"structured_outputs": {"regex": pattern}}
    if settings.structured_outputs is StructuredOutputs.LEGACY:
        return {"guided_regex": pattern}
    return {}


def _mean_logprob(logprobs: Any) -> float:
    """Mean token logprob from a completions or chat `logprobs` object; 0 if none."""
    values: list[float] = []
    if isinstance(logprobs, dict):
        if isinstance(logprobs.get("token_logprobs"), list):
            values = [float(v) for v in logprobs["token_logprobs"] if v is not None]
        elif isinstance(logprobs.get("content"), list):
            values = [
                float(item["logprob"])
                for item in logprobs["content"]
                if isinstance(item, dict) and item.get("logprob") is not None
            ]
    return sum(values) / len(values) if values else 0.0


class VllmBackend:
    """A client of one vLLM (or any OpenAI-compatible) server."""

    name = "vllm"

    def __init__(
        self, settings: BackendSettings, client: httpx.Client | None = None
    ) -> None:
        self.settings = settings
        self.base = settings.url.rstrip("/")
        timeout = httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.connect_timeout,
        )
        self.client = client or httpx.Client(timeout=timeout)
        self._model = settings.served_model
        self.requests = 0  # POSTs sent, retries included (the benchmark counts them)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self.client.close()

    def _request(self, method: str, route: str, body: Any = None) -> Any:
        """One call with retries on 5xx and connection errors; the decoded JSON."""
        url = f"{self.base}{route}"
        attempts = 1 + max(0, self.settings.retries)
        last = ""
        for attempt in range(attempts):
            if attempt:
                time.sleep(_BACKOFF_S * 2 ** (attempt - 1))
            try:
                self.requests += method == "POST"
                response = self.client.request(method, url, json=body)
            except httpx.ConnectError:
                last = f"model server unreachable at {self.base}"
                continue
            except httpx.TimeoutException as exc:
                # A server that accepted the request but is too slow: retrying
                # would only double the wait.
                what = "connect" if isinstance(exc, httpx.ConnectTimeout) else "answer"
                limit = (
                    self.settings.connect_timeout
                    if what == "connect"
                    else self.settings.read_timeout
                )
                raise BackendError(
                    f"model server at {self.base} did not {what} within {limit:g} s"
                ) from None
            except httpx.HTTPError as exc:
                last = f"model server at {self.base} failed: {type(exc).__name__}"
                continue
            if response.status_code >= 500:
                status = response.status_code
                last = f"model server at {self.base} answered HTTP {status}"
                continue
            if response.status_code >= 400:
                detail = " ".join(response.text.split())[:160]
                raise BackendError(
                    f"model server at {self.base} rejected {route} "
                    f"(HTTP {response.status_code}): {detail}"
                )
            try:
                return response.json()
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise BackendError(
                    f"model server at {self.base} returned malformed JSON for {route}"
                ) from None
        raise BackendError(last + f" (after {attempts} tries)")

    def model(self) -> str:
        """The served model name: the setting, else the server's first model."""
        if not self._model:
            listing = self._request("GET", "/models")
            try:
                self._model = str(listing["data"][0]["id"])
            except (KeyError, IndexError, TypeError):
                raise BackendError(
                    f"model server at {self.base} lists no models"
                ) from None
        return self._model

    def complete(self, prompts: Sequence[str], n: int) -> list[list[Candidate]]:
        """`n` candidates per prompt: one completions request, or concurrent chats."""
        if not prompts:
            return []
        if self.settings.chat:
            return self._chat_all(prompts, n)
        out: list[list[Candidate]] = [[] for _ in prompts]
        # One request per dialect regex: a file is one dialect, so one request.
        groups: dict[str, list[int]] = {}
        for index, prompt in enumerate(prompts):
            groups.setdefault(regex_for_prompt(prompt), []).append(index)
        for pattern, indices in groups.items():
            answers = self._completions([prompts[i] for i in indices], n, pattern)
            for i, found in zip(indices, answers, strict=True):
                out[i] = found
        return out

    def _body(self, n: int, pattern: str) -> dict[str, Any]:
        return {
            "model": self.model(),
            "n": n,
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
            "stop": ["\n"],
            **_structured(self.settings, pattern),
        }

    def _completions(
        self, prompts: list[str], n: int, pattern: str
    ) -> list[list[Candidate]]:
        body = {"prompt": prompts, "logprobs": 1, **self._body(n, pattern)}
        reply = self._request("POST", "/completions", body)
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list):
            raise BackendError(f"model server at {self.base} returned no choices")
        out: list[list[Candidate]] = [[] for _ in prompts]
        for position, choice in enumerate(choices):
            if not isinstance(choice, dict) or not isinstance(choice.get("text"), str):
                raise BackendError(
                    f"model server at {self.base} returned a malformed choice"
                )
            # vLLM numbers the choices prompt by prompt: index = prompt * n + k.
            index = choice.get("index", position)
            slot = (index if isinstance(index, int) else position) // max(1, n)
            if 0 <= slot < len(prompts):
                score = _mean_logprob(choice.get("logprobs"))
                out[slot].append(Candidate(choice["text"].strip(), score))
        return out

    def _chat_all(self, prompts: Sequence[str], n: int) -> list[list[Candidate]]:
        workers = max(1, min(self.settings.chat_concurrency, len(prompts)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda p: self._chat(p, n), prompts))

    def _chat(self, prompt: str, n: int) -> list[Candidate]:
        body = {
            "messages": [
                {"role": "system", "content": _SYSTEM},
                {"role": "user", "content": prompt},
            ],
            "logprobs": True,
            **self._body(n, regex_for_prompt(prompt)),
        }
        reply = self._request("POST", "/chat/completions", body)
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list):
            raise BackendError(f"model server at {self.base} returned no choices")
        out: list[Candidate] = []
        for choice in choices:
            message = choice.get("message") if isinstance(choice, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, str):
                raise BackendError(
                    f"model server at {self.base} returned a malformed message"
                )
            score = _mean_logprob(choice.get("logprobs"))
            out.append(Candidate(content.strip(), score))
        return out
