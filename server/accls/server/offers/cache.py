"""What code actions, hover and commands share per document version."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis import ProgramSummaries
from accls.server.documents import Document, Slot
from accls.server.language_server import AcclsServer
from accls.server.offers.key import ActionKey, ActionKind
from accls.server.suggestions import (
    BufferAnalysis,
    Validated,
    before_passes,
    joined,
    listed,
)
from accls.suggest import Suggestion, SuggestOptions

__all__ = [
    "VALIDATED",
    "Offered",
    "cached_validation",
    "offered",
    "remember_offer",
    "suggestions_for",
    "withdrawn",
]

VALIDATED: Slot[ActionKey, Validated] = Slot("validated")
"""The validation of each action resolved at this version."""


@dataclass(frozen=True, slots=True)
class Offered:
    """A listed action's function: its suggestions, text and summaries."""

    suggestions: tuple[Suggestion, ...]  # as `suggestions_for` lists them now
    text: str
    program: ProgramSummaries | None


@dataclass(frozen=True, slots=True)
class _Listed:
    suggestions: tuple[Suggestion, ...]  # a slice's: before the whole-file passes
    entire: bool  # of a whole buffer: final, nothing to join
    text_hash: int  # of the text the analysis read (the text itself is not kept)
    program: ProgramSummaries | None


_OFFERED: Slot[ActionKey, _Listed] = Slot("offered")
"""The suggestions of each listed pragma action's function, at this version.

Resolve takes them instead of analysing the function again: the analysis a
listing came from is dropped once FUNCTIONS_KEPT later functions are listed.
"""


def remember_offer(doc: Document, key: ActionKey, analysed: BufferAnalysis) -> None:
    """Keep what the action listed under `key` chooses from, for its resolve."""
    regions = key.kind is ActionKind.REGION
    found = (
        suggestions_for(analysed, key.options, regions)
        if analysed.entire
        else before_passes(analysed, key.options, regions=regions)
    )
    text = analysed.source.text
    kept = _Listed(found, analysed.entire, hash(text), analysed.acc.program)
    doc.store(_OFFERED, key, kept)


def offered(ls: AcclsServer, doc: Document, key: ActionKey) -> Offered | None:
    """What the listing offered under `key`, if it still holds for this version.

    A slice's suggestions take what the whole buffer's passes changed, if that
    analysis is in now, as `listed` does. None when nothing was kept, when the
    function's text is no longer the one the listing read, or when the feedback
    command needs the analysis itself.
    """
    found = doc.peek(_OFFERED, key)
    if found is None or ls.settings.feedback.enabled:
        return None
    where = ls.analysis_input(doc, key.loop)
    if where is None or hash(where[1]) != found.text_hash:
        return None
    suggestions = found.suggestions
    if not found.entire:
        regions = key.kind is ActionKind.REGION
        whole = ls.whole_if_in(doc)
        suggestions = joined(suggestions, whole, key.options, regions=regions)
    return Offered(suggestions, where[1], found.program)


def withdrawn(doc: Document, key: ActionKey) -> bool:
    """Whether resolving the action at this version withdrew it."""
    checked = doc.peek(VALIDATED, key)
    return checked is not None and bool(checked.withdrawn)


def cached_validation(
    doc: Document, loop_id: int, options: SuggestOptions
) -> Validated | None:
    """The validation of an action on this loop resolved at this version, if any."""
    for key, value in doc.entries(VALIDATED):
        if (
            key.kind is not ActionKind.INDUCTION
            and key.loop == loop_id
            and key.options == options
        ):
            return value
    return None


def suggestions_for(
    analysed: BufferAnalysis, options: SuggestOptions, regions: bool
) -> tuple[Suggestion, ...]:
    """Listed suggestions of a function's analysis (cached with the analysis)."""
    key = (options, regions)
    found = analysed.memo.get(key)
    if found is None:
        found = analysed.memo[key] = listed(analysed, options, regions=regions)
    return found
