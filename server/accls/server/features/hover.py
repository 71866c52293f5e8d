"""Hover on a loop's header: the analysis, the pragma per model, and why."""

from __future__ import annotations

from lsprotocol import types

from accls.server.documents import Document
from accls.server.hover_text import Offer, render_hover
from accls.server.language_server import AcclsServer
from accls.server.offers import cached_validation, restrict_note, suggestions_for
from accls.server.suggestions import BufferAnalysis, data_moves, offers
from accls.suggest import Dialect, Suggestion, SuggestOptions
from accls.suggest.inductions import rewrite_inductions

__all__ = ["register"]


def _status(doc: Document, options: SuggestOptions, s: Suggestion) -> str:
    checked = cached_validation(doc, s.loop.id, options)
    if checked is None:
        return "not checked yet (resolving the code action checks it)"
    if checked.withdrawn:
        return f"failed: {checked.withdrawn}"
    found = checked.validation.get(s.loop.id)
    checks = found.checks if found is not None else ()
    return "; ".join(checks) or "not validated (validation is off)"


def _label(options: SuggestOptions) -> str:
    model = "OpenACC" if options.dialect is Dialect.OPENACC else "OpenMP"
    return f"{model} ({options.target.value.upper()})"


def _offers(
    doc: Document,
    analysed: BufferAnalysis,
    loop_id: int,
    choices: tuple[SuggestOptions, ...],
) -> list[Offer]:
    out: list[Offer] = []
    for options in choices:
        all_ = suggestions_for(analysed, options, False)
        found = next((s for s in all_ if s.loop.id == loop_id), None)
        checked = cached_validation(doc, loop_id, options) if found else None
        if checked is not None:
            # Resolved: show what was offered (a model pragma, its alternatives).
            found = next(
                (s for s in checked.suggestions if s.loop.id == loop_id), found
            )
        status = "" if found is None else _status(doc, options, found)
        out.append(Offer(label=_label(options), suggestion=found, status=status))
    return out


def _markup(ls: AcclsServer) -> types.MarkupKind:
    caps = ls.client_capabilities.text_document
    formats = caps.hover.content_format if caps and caps.hover else None
    if formats and types.MarkupKind.Markdown not in formats:
        return types.MarkupKind.PlainText
    return types.MarkupKind.Markdown


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
        facts = analysed.analysis(ls.settings.dialect).of(loop)
        moves = data_moves(analysed, facts) if facts.parallel else ()
        rewrite = (
            rewrite_inductions(analysed.source.text, facts)
            if facts.inductions
            else None
        )
        source = analysed.source
        unseen = (
            ", ".join(f"`{h}`" for h in source.missing_headers)
            + " not found: what it declares is unknown here (add its folder to "
            "`includePaths`)"
            if source.missing_headers
            else source.preprocessor_problem or ""
        )
        text = render_hover(
            facts,
            _offers(doc, analysed, loop.id, offers(ls.settings)),
            moves,
            rewrite,
            unseen,
        )
        note = restrict_note(ls, doc, analysed, loop.id)
        if note is not None:
            text = f"{text}\n\n{note}"
        return types.Hover(
            contents=types.MarkupContent(kind=_markup(ls), value=text),
            range=doc.index.span_range(loop.header),
        )
