"""The one pipeline: suggest for this text, check this text.

Above suggest/, validation/ and hybrid/; below the CLI and the language server.
"""

from accls.pipeline.checking import check_text
from accls.pipeline.sinks import OnceSink, WarningSink, discard
from accls.pipeline.suggesting import (
    SuggestResult,
    analysis_options,
    compiler_settings,
    estimates_for,
    suggest_text,
)

__all__ = [
    "OnceSink",
    "SuggestResult",
    "WarningSink",
    "analysis_options",
    "check_text",
    "compiler_settings",
    "discard",
    "estimates_for",
    "suggest_text",
]
