"""Hover on a loop's header: the verdict, what decides it, the pragmas (short)."""

from __future__ import annotations

from lsprotocol import types

from accls.server.explanation import explain_hint, loop_report
from accls.server.hover_text import render_hover
from accls.server.language_server import AcclsServer

__all__ = ["register"]


def _markdown(ls: AcclsServer) -> bool:
    caps = ls.client_capabilities.text_document
    formats = caps.hover.content_format if caps and caps.hover else None
    return not formats or types.MarkupKind.Markdown in formats


def register(server: AcclsServer) -> None:
    """`textDocument/hover`."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: AcclsServer, params: types.HoverParams) -> types.Hover | None:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return None
        offset = doc.index.offset(params.position)
        analysed = await ls.analysed(doc, offset)
        if analysed is None:
            return None
        loop = next(
            (
                loop
                for loop in reversed(analysed.loops_at(offset))
                if loop.keyword.start_byte <= offset < loop.header.end_byte
            ),
            None,
        )
        if loop is None:
            return None
        markdown = _markdown(ls)
        text = render_hover(
            loop_report(ls, doc, analysed, loop),
            explain=explain_hint(
                ls, doc.uri, doc.index.position(loop.keyword.start_byte)
            ),
            markdown=markdown,
        )
        kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
        return types.Hover(
            contents=types.MarkupContent(kind=kind, value=text),
            range=doc.index.span_range(loop.header),
        )
