"""Model backends: where model candidates come from (none, vLLM, local, fake)."""

from __future__ import annotations

from accls.suggest.backends.base import (
    Backend,
    BackendError,
    BackendKind,
    BackendSettings,
    Candidate,
    StructuredOutputs,
)

__all__ = [
    "Backend",
    "BackendError",
    "BackendKind",
    "BackendSettings",
    "Candidate",
    "StructuredOutputs",
    "make_backend",
]


def make_backend(settings: BackendSettings) -> Backend | None:
    """The backend the settings name; None for `analysis` (no model).

    Raises BackendError when it cannot be built (no torch, no model directory).
    Heavy modules are imported here, only for the kind asked for.
    """
    if settings.kind is BackendKind.ANALYSIS:
        return None
    if settings.kind is BackendKind.FAKE:
        from accls.suggest.backends.fake import FakeBackend

        return FakeBackend(settings)
    if settings.kind is BackendKind.VLLM:
        from accls.suggest.backends.vllm_http import VllmBackend

        return VllmBackend(settings)
    from accls.suggest.backends.transformers_local import TransformersBackend

    return TransformersBackend(settings)
