"""What code actions, hover and commands share per document version."""

from __future__ import annotations

from accls.server.documents import Document, Slot
from accls.server.offers.key import ActionKey, ActionKind
from accls.server.suggestions import BufferAnalysis, Validated, listed
from accls.suggest import Suggestion, SuggestOptions

__all__ = ["VALIDATED", "cached_validation", "suggestions_for", "withdrawn"]

VALIDATED: Slot[ActionKey, Validated] = Slot("validated")
"""The validation of each action resolved at this version."""


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
