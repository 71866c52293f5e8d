"""The hybrid pipeline: analysis and model candidates, validated, repaired, ranked."""

from accls.hybrid.pipeline import (
    HybridResult,
    reset_backends,
    shared_backend,
    suggest_hybrid,
)

__all__ = ["HybridResult", "reset_backends", "shared_backend", "suggest_hybrid"]
