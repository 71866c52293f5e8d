"""What code actions, hover and commands share per document version."""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis import ProgramSummaries
from accls.server.documents import Document, Slot
from accls.server.language_server import AcclsServer
from accls.server.offers.key import ActionKey, ActionKind
from accls.server.suggestions import BufferAnalysis, Validated, listed, pending
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
    """What a listed action inserts, and the text and summaries it was found in."""

    chosen: tuple[Suggestion, ...]
    text: str
    program: ProgramSummaries | None


@dataclass(frozen=True, slots=True)
class _Listed:
    chosen: tuple[Suggestion, ...]
    text_hash: int  # of the text the analysis read (the text itself is not kept)
    program: ProgramSummaries | None


_OFFERED: Slot[ActionKey, _Listed] = Slot("offered")
"""The suggestions each listed pragma action inserts, at this version.

Resolve takes them instead of analysing the function again: the analysis a
listing came from is dropped once FUNCTIONS_KEPT later functions are listed.
"""


def remember_offer(
    doc: Document,
    key: ActionKey,
    analysed: BufferAnalysis,
    chosen: tuple[Suggestion, ...],
) -> None:
    """Keep what the action listed under `key` inserts, for its resolve.

    Not while the whole-file passes are pending: once they are in, a new
    analysis of the function would answer differently.
    """
    if chosen and not pending(analysed):
        text = analysed.source.text
        doc.store(_OFFERED, key, _Listed(chosen, hash(text), analysed.acc.program))


def offered(ls: AcclsServer, doc: Document, key: ActionKey) -> Offered | None:
    """What the listing offered under `key`, if it still holds for this version.

    None when nothing was kept, when the function's text is no longer the one
    the listing read, or when the feedback command needs the analysis itself.
    """
    found = doc.peek(_OFFERED, key)
    if found is None or ls.settings.feedback.enabled:
        return None
    where = ls.analysis_input(doc, key.loop)
    if where is None or hash(where[1]) != found.text_hash:
        return None
    return Offered(found.chosen, where[1], found.program)


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
