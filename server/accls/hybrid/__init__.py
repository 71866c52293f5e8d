"""The hybrid pipeline: analysis and model candidates, validated, repaired, ranked."""

from accls.hybrid.pipeline import HybridResult, suggest_hybrid
from accls.hybrid.pool import BackendPool

__all__ = ["BackendPool", "HybridResult", "suggest_hybrid"]
