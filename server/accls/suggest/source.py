"""Where a suggested pragma came from: the analysis, a model, or a repaired model."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Source"]


class Source(StrEnum):
    """The origin of a pragma; the values are the CLI's and the LSP's strings."""

    ANALYSIS = "analysis"
    MODEL = "model"
    REPAIRED = "model+repaired"  # a model pragma the analysis facts had to fix
