"""A deterministic backend for tests and the editor end to end: no model at all."""

from __future__ import annotations

from collections.abc import Sequence

from accls.suggest.backends.base import BackendSettings, Candidate

__all__ = ["FakeBackend"]

_PLAIN = {"openacc": "#pragma acc parallel loop", "openmp": "#pragma omp parallel for"}


class FakeBackend:
    """Returns the completions its settings list, else a bare pragma of the dialect.

    The bare pragma (`#pragma acc parallel loop`, no clauses) is what an
    untrained model writes most: the hybrid pipeline then has to add the
    reductions, privates and data clauses the analysis proved.
    """

    name = "fake"

    def __init__(self, settings: BackendSettings) -> None:
        self.settings = settings
        self.calls = 0

    def complete(self, prompts: Sequence[str], n: int) -> list[list[Candidate]]:
        """The same candidates for every prompt, best score first."""
        self.calls += 1
        out: list[list[Candidate]] = []
        for prompt in prompts:
            texts = list(self.settings.candidates) or [_PLAIN[_model_of(prompt)]]
            out.append(
                [Candidate(text, -0.1 * rank) for rank, text in enumerate(texts[:n])]
            )
        return out


def _model_of(prompt: str) -> str:
    for line in prompt.split("\n", 3)[:3]:
        if line.startswith("model: "):
            value = line.removeprefix("model: ").strip()
            if value in _PLAIN:
                return value
    return "openacc"
