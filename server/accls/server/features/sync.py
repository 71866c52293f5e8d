"""Text sync: didOpen, didChange (incremental), didClose.

Features that follow documents (diagnostics, feedback) connect to `ls.events`.
"""

from __future__ import annotations

import logging

from lsprotocol import types

from accls.server.convert import InvalidRange, encoding_name
from accls.server.language_server import AcclsServer

__all__ = ["register"]

log = logging.getLogger(__name__)


def register(server: AcclsServer) -> None:
    """Track open buffers and re-parse them incrementally on each change."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AcclsServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        encoding = encoding_name(ls.workspace.position_encoding)
        doc = ls.documents.open(item.uri, item.version, item.text, encoding)
        ls.events.opened.emit(doc)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AcclsServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.documents.get(uri)
        if doc is None:
            log.warning("didChange for %s, which is not open", uri)
            return
        try:
            shifts = doc.apply(params.text_document.version, params.content_changes)
        except (InvalidRange, ValueError) as exc:
            # The buffers now disagree; the client resends the text on its next
            # didOpen. Until then, work on what we have.
            log.warning("didChange for %s: %s", uri, exc)
            shifts = []
        ls.events.changed.emit(doc, shifts)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AcclsServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.close(uri)
        ls.scheduler.forget(uri)
        ls.events.closed.emit(uri)
