"""Pragma suggestions: synthesis from analysis facts (and, later, model backends)."""

from accls.suggest.accounting import account_for_loops
from accls.suggest.options import Gpu, SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target, parse_pragma
from accls.suggest.prompt import (
    build_prompt,
    completion_pragma,
    pragma_regex,
    prompt_for_text,
)
from accls.suggest.repair import Repair, repair
from accls.suggest.rules import reference_suggestion, suggest_file
from accls.suggest.source import Source
from accls.suggest.suggestion import Alternative, Atomic, Suggestion, with_inner

__all__ = [
    "Alternative",
    "Atomic",
    "Dialect",
    "Gpu",
    "Pragma",
    "Repair",
    "Source",
    "SuggestOptions",
    "Suggestion",
    "Target",
    "account_for_loops",
    "build_prompt",
    "completion_pragma",
    "parse_pragma",
    "pragma_regex",
    "prompt_for_text",
    "reference_suggestion",
    "repair",
    "suggest_file",
    "with_inner",
]
