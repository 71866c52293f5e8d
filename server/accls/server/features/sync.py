"""Text sync: didOpen, didChange (incremental), didClose."""

from __future__ import annotations

import logging

from lsprotocol import types

from accls.server.app import AcclsServer
from accls.server.convert import InvalidRange, encoding_name
from accls.server.features import diagnostics, feedback

__all__ = ["register"]

log = logging.getLogger(__name__)


def register(server: AcclsServer) -> None:
    """Track open buffers and re-parse them incrementally on each change."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AcclsServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        encoding = encoding_name(ls.workspace.position_encoding)
        ls.documents.open(item.uri, item.version, item.text, encoding)
        diagnostics.schedule(ls, item.uri)

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
        feedback.track_edits(ls, doc, shifts)
        diagnostics.schedule(ls, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AcclsServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.close(uri)
        ls.scheduler.forget(uri)
        diagnostics.forget(ls, uri)
        feedback.forget(ls, uri)
