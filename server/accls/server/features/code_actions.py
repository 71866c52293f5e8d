"""`textDocument/codeAction` and `codeAction/resolve` over the table of offers.

Listing asks each kind in `offers.OFFERS` for its cheap actions, then adds the
quick fixes of the request's diagnostics; resolve hands an action to its kind.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams

from accls.server.convert import InvalidRange
from accls.server.documents import Document
from accls.server.language_server import AcclsServer
from accls.server.offers import (
    KIND,
    OFFERS,
    ActionKey,
    Listing,
    Resolving,
    offered,
    quick_fixes,
)

__all__ = ["register"]


async def _listing(
    ls: AcclsServer, doc: Document, params: types.CodeActionParams
) -> list[types.CodeAction]:
    try:
        start, _ = doc.index.byte_range(params.range)
    except InvalidRange as exc:
        raise JsonRpcInvalidParams(str(exc)) from None
    only = params.context.only
    actions: list[types.CodeAction] = []
    if not only or any(KIND.startswith(k) or k == "refactor" for k in only):
        analysed = await ls.analysed(doc, start)
        if analysed is not None:
            at = Listing(ls, doc, analysed, start)
            for offer in OFFERS.values():
                actions.extend(offer.listing(at))
    if not only or types.CodeActionKind.QuickFix in only:
        actions.extend(await quick_fixes(ls, doc, params.context.diagnostics))
    return actions


async def _resolve(ls: AcclsServer, action: types.CodeAction) -> types.CodeAction:
    """Compute the edit of a listed action and validate it."""
    if action.data is None and action.edit is not None:
        return action  # a quick fix: its edit came with the listing
    key = ActionKey.parse(action.data)
    doc = ls.documents.get(key.uri)
    if doc is None or doc.version != key.version:
        raise JsonRpcContentModified(f"{key.uri} changed since the action was listed")
    # A pragma the listing offered needs no new analysis of its function.
    listed = offered(ls, doc, key)
    analysed = await ls.analysed(doc, key.loop) if listed is None else None
    return await OFFERS[key.kind].resolve(
        Resolving(ls, doc, key, analysed, action, listed)
    )


def _resolves(ls: AcclsServer) -> bool:
    """Whether the client resolves an action's edit lazily."""
    caps = ls.client_capabilities.text_document
    support = caps.code_action.resolve_support if caps and caps.code_action else None
    return support is not None and "edit" in support.properties


def register(server: AcclsServer) -> None:
    """`textDocument/codeAction` and `codeAction/resolve`."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[KIND, types.CodeActionKind.QuickFix],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: AcclsServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return None
        actions = await _listing(ls, doc, params)
        if not _resolves(ls):
            actions = [await _resolve(ls, a) for a in actions]
        return actions or None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(
        ls: AcclsServer, params: types.CodeAction
    ) -> types.CodeAction:
        return await _resolve(ls, params)
