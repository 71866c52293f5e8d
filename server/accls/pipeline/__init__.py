"""The one pipeline: suggest for this text, check this text.

Above suggest/, validation/ and hybrid/; below the CLI and the language server.
"""

from accls.pipeline.checking import check_text
from accls.pipeline.hoisting import HoistOutcome, annotate_hoisted
from accls.pipeline.sinks import OnceSink, WarningSink, discard
from accls.pipeline.suggesting import (
    SuggestResult,
    analysis_options,
    compiler_settings,
    estimates_for,
    suggest_text,
)

__all__ = [
    "HoistOutcome",
    "OnceSink",
    "SuggestResult",
    "WarningSink",
    "analysis_options",
    "annotate_hoisted",
    "check_text",
    "compiler_settings",
    "discard",
    "estimates_for",
    "suggest_text",
]
