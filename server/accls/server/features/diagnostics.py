"""Diagnostics: the check catalog's findings on existing pragmas, pushed or pulled.

Pushing is debounced per URI (about 300 ms after the last edit) and a result for a
superseded version is dropped. Clients that can pull (`textDocument/diagnostic`)
get no pushes, so they never see the same finding twice.
"""

from __future__ import annotations

import asyncio
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

from lsprotocol import types

import accls
from accls.analysis import Finding, ProgramSummaries
from accls.analysis.findings import Severity
from accls.frontend import HeaderContext
from accls.frontend.incremental import IncrementalTree
from accls.pipeline import check_text
from accls.server.convert import LineIndex
from accls.server.documents import WHOLE_FILE_MAX_BYTES, Document, LineShift, Slot
from accls.server.language_server import AcclsServer, queued, until_changed
from accls.server.scheduler import CHECKS

__all__ = ["CHECK_MAX_BYTES", "DEBOUNCE_S", "findings", "register"]

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.3
"""Quiet time after the last edit before the file is checked again."""

CHECK_MAX_BYTES = WHOLE_FILE_MAX_BYTES
"""Whole-file checks stop here (about 8 s of work); code actions go on."""

_FINDINGS: Slot[None, asyncio.Future[tuple[Finding, ...]]] = Slot("findings")
"""The whole file's findings at a version (one entry, key None)."""

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


@lru_cache(maxsize=64)
def docs_uri(code: str) -> str | None:
    """A file:// URI of the docs page of a finding code, if the docs are there."""
    page = Path(accls.__file__).resolve().parents[2] / "docs" / "checks" / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def _check(
    text: str,
    path: str,
    include: tuple[str, ...],
    tree: IncrementalTree,
    context: HeaderContext | None,
    program: ProgramSummaries | None = None,
) -> tuple[Finding, ...]:
    """`accls.pipeline.check_text`, re-using the editor's incremental tree."""
    return check_text(
        text, path, include_dirs=include, context=context, tree=tree, program=program
    )


def _too_big(ls: AcclsServer, doc: Document) -> bool:
    """True past CHECK_MAX_BYTES; says so once per document and settings."""
    size = len(doc.data)
    if size <= CHECK_MAX_BYTES:
        return False
    notice = f"accls: {Path(doc.path).name} is {size / 1e6:.1f} MB; the checks run "
    notice += f"on files up to {CHECK_MAX_BYTES / 1e6:g} MB (code actions still work)"
    ls.warn_once(notice)
    return True


async def findings(ls: AcclsServer, doc: Document) -> tuple[Finding, ...]:
    """The findings of the document's current version (computed once)."""
    if _too_big(ls, doc):
        return ()
    pending = doc.peek(_FINDINGS, None)
    if pending is None:
        text, path, include = doc.text, doc.path, ls.include_dirs(doc)
        tree, version = doc.tree.snapshot(), doc.version

        def work() -> tuple[Finding, ...]:
            if doc.version != version:
                return ()  # superseded while queued: nobody will read it
            context = ls.header_context(text, path)
            return _check(text, path, include, tree, context, ls.programs(path))

        pending = queued(ls.scheduler.run(doc, CHECKS, work))
        doc.store(_FINDINGS, None, pending)
    return await until_changed(doc, asyncio.shield(pending))


def to_diagnostic(item: Finding, index: LineIndex) -> types.Diagnostic:
    """One finding as an LSP diagnostic with its code and docs link."""
    href = docs_uri(item.code)
    data: dict[str, Any] = {"code": item.code, "start": item.span.start_byte}
    if item.insert is not None:
        data["insert"] = list(item.insert)
    return types.Diagnostic(
        range=index.span_range(item.span),
        message=item.message,
        severity=_SEVERITY[item.level],
        code=item.code,
        code_description=types.CodeDescription(href=href) if href else None,
        source="accls",
        data=data,
    )


def _pulls(ls: AcclsServer) -> bool:
    caps = ls.client_capabilities.text_document
    return caps is not None and caps.diagnostic is not None


class _Pushes:
    """Diagnostics pushed to a client that does not pull: one pending task per URI."""

    def __init__(self, ls: AcclsServer) -> None:
        self._ls = ls
        self._pending: dict[str, asyncio.Task[None]] = {}

    async def _publish_later(self, uri: str) -> None:
        ls = self._ls
        await asyncio.sleep(DEBOUNCE_S)
        doc = ls.documents.get(uri)
        if doc is None:
            return
        version = doc.version
        try:
            found = await findings(ls, doc)
        except Exception as exc:  # a superseded version, or a bug: never kill the loop
            log.info("diagnostics for %s v%s dropped: %s", uri, version, exc)
            return
        if ls.documents.get(uri) is not doc or doc.version != version:
            return
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                version=version,
                diagnostics=[to_diagnostic(f, doc.index) for f in found],
            )
        )

    def schedule(self, doc: Document) -> None:
        """Push `doc`'s diagnostics once edits pause (for clients that do not pull)."""
        if _pulls(self._ls):
            return
        uri, pending = doc.uri, self._pending
        previous = pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.get_running_loop().create_task(self._publish_later(uri))
        pending[uri] = task

        def done(finished: asyncio.Task[None]) -> None:
            if pending.get(uri) is finished:
                del pending[uri]

        task.add_done_callback(done)

    def changed(self, doc: Document, shifts: list[LineShift]) -> None:
        """An edit: push again once edits pause."""
        self.schedule(doc)

    def settings_changed(self) -> None:
        """Check every document again; ask a pulling client to pull again.

        Also when the workspace index has new summaries of other files.
        """
        ls = self._ls
        for doc in ls.documents:
            self.schedule(doc)
        workspace = ls.client_capabilities.workspace
        support = workspace.diagnostics if workspace is not None else None
        if _pulls(ls) and support is not None and support.refresh_support:
            ls.workspace_diagnostic_refresh(None)

    def closed(self, uri: str) -> None:
        """A closed document: stop its pending push and clear what was pushed."""
        previous = self._pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        if not _pulls(self._ls):
            self._ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def shutdown(self) -> None:
        """Stop every pending push."""
        for task in list(self._pending.values()):
            task.cancel()


def register(server: AcclsServer) -> None:
    """Pull diagnostics (`textDocument/diagnostic`); pushes follow the documents."""
    pushes = _Pushes(server)
    server.events.opened.connect(pushes.schedule)
    server.events.changed.connect(pushes.changed)
    server.events.closed.connect(pushes.closed)
    server.events.settings_changed.connect(pushes.settings_changed)
    # Another file's summaries changed (a kernel lost its pragmas): check again.
    server.events.refreshed.connect(pushes.settings_changed)
    server.events.shutdown.connect(pushes.shutdown)

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="accls",
            inter_file_dependencies=True,
            workspace_diagnostics=False,
        ),
    )
    async def pull(
        ls: AcclsServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        doc = ls.documents.get(params.text_document.uri)
        if doc is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        version = str(doc.version)
        if (
            params.previous_result_id == version
            and doc.peek(_FINDINGS, None) is not None
        ):
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=version)
        found = await findings(ls, doc)
        return types.RelatedFullDocumentDiagnosticReport(
            items=[to_diagnostic(f, doc.index) for f in found], result_id=version
        )
