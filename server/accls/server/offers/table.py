"""The table of code-action kinds, as clangd's tweaks: a cheap list, then resolve.

Each kind lists its actions from the cached analysis (title, kind and `data`
only) and computes the edit on resolve, after the compile and race checks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from lsprotocol import types

from accls.server.documents import Document
from accls.server.language_server import AcclsServer
from accls.server.offers.cache import Offered
from accls.server.offers.key import ActionKey, ActionKind
from accls.server.suggestions import BufferAnalysis
from accls.suggest import SuggestOptions

__all__ = ["KIND", "Listing", "Offer", "Resolving"]

KIND = types.CodeActionKind.RefactorRewrite
"""The LSP kind of every offer (quick fixes are `quickfix`)."""


@dataclass(frozen=True, slots=True)
class Listing:
    """Where actions are listed: the document, its analysis and the cursor."""

    ls: AcclsServer
    doc: Document
    analysed: BufferAnalysis
    offset: int

    def key(self, kind: ActionKind, options: SuggestOptions, loop: int) -> ActionKey:
        """The key of a `kind` action listed on `loop` at this version."""
        return ActionKey.of(self.doc.uri, self.doc.version, kind, options, loop)


@dataclass(frozen=True, slots=True)
class Resolving:
    """An action being resolved: its key, document and the analysis (if any)."""

    ls: AcclsServer
    doc: Document
    key: ActionKey
    analysed: BufferAnalysis | None
    action: types.CodeAction
    # What the listing offered, when resolve takes it instead of `analysed`.
    offered: Offered | None = None


@dataclass(frozen=True, slots=True)
class Offer:
    """One kind of code action: how it lists and how it resolves."""

    kind: ActionKind
    listing: Callable[[Listing], list[types.CodeAction]]
    resolve: Callable[[Resolving], Awaitable[types.CodeAction]]
