"""Code-action offers: the table of kinds, and what hover and commands share."""

from __future__ import annotations

from accls.server.offers.applied import RECORD_APPLIED, applied_command
from accls.server.offers.cache import (
    VALIDATED,
    Offered,
    cached_validation,
    offered,
    suggestions_for,
    withdrawn,
)
from accls.server.offers.hoist import HOIST
from accls.server.offers.induction import INDUCTION
from accls.server.offers.key import ActionKey, ActionKind
from accls.server.offers.lifetime import LIFETIME, lifetime_note
from accls.server.offers.pragma import LOOP, MODEL, REGION, offer_label
from accls.server.offers.quick_fixes import quick_fixes
from accls.server.offers.restrict import RESTRICT, restrict_note
from accls.server.offers.table import KIND, Listing, Offer, Resolving

__all__ = [
    "KIND",
    "OFFERS",
    "RECORD_APPLIED",
    "VALIDATED",
    "ActionKey",
    "ActionKind",
    "Listing",
    "Offer",
    "Offered",
    "Resolving",
    "applied_command",
    "cached_validation",
    "lifetime_note",
    "offer_label",
    "offered",
    "quick_fixes",
    "restrict_note",
    "suggestions_for",
    "withdrawn",
]

OFFERS: dict[ActionKind, Offer] = {
    offer.kind: offer
    for offer in (
        LOOP,
        MODEL,
        REGION,
        INDUCTION,
        RESTRICT,
        HOIST,
        LIFETIME,
    )
}
"""Every kind of resolvable action, in the order the listing shows them."""
