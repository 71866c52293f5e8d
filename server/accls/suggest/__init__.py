"""Pragma suggestions: synthesis from analysis facts (and, later, model backends)."""

from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target, parse_pragma
from accls.suggest.rules import Atomic, Suggestion, suggest_file

__all__ = [
    "Atomic",
    "Dialect",
    "Pragma",
    "SuggestOptions",
    "Suggestion",
    "Target",
    "parse_pragma",
    "suggest_file",
]
