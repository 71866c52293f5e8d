"""build_server(): the accls LanguageServer and its features."""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcContentModified
from pygls.lsp.server import LanguageServer

from accls import __version__
from accls.feedback import FeedbackStore
from accls.frontend import ContextCache, HeaderContext
from accls.hybrid import BackendPool
from accls.project import BuildFlags, build_context
from accls.server.documents import WHOLE_FILE_MAX_BYTES, Document, DocumentStore
from accls.server.protocol import AcclsProtocol
from accls.server.scheduler import INTERACTIVE, DocumentScheduler
from accls.server.suggestions import Analysed, analyse
from accls.settings import Settings, database_include_paths

__all__ = ["AcclsServer", "build_server", "queued", "until_changed"]

log = logging.getLogger(__name__)

PREPROCESS_TIMEOUT_S = 3.0
"""The editor's bound on preprocessing a buffer's directives (cached per skeleton)."""
T = TypeVar("T")


class AcclsServer(LanguageServer):
    """The server: open documents, settings, and a worker pool for the analysis."""

    def __init__(self) -> None:
        super().__init__("accls", __version__, protocol_cls=AcclsProtocol)
        self.documents = DocumentStore()
        self.settings = Settings()
        self.raw_settings: Any = None  # the wire object the settings came from
        self.startup_problems: list[str] = []
        self.shown_warnings: set[str] = set()  # model-backend warnings, shown once
        self.pending_diagnostics: dict[str, asyncio.Task[None]] = {}
        self.feedback_store: FeedbackStore | None = None  # opened on first use
        self.feedback_path = ""
        self.followed: dict[str, list[Any]] = {}  # applied pragmas, by URI
        self.shut_down = False
        self.contexts = ContextCache()  # preprocessed directives, by skeleton
        # Analysis and compiles run off the event loop, so edits and cancellations
        # are read while they work; each document queues its own work, so a slow
        # one never delays another, and its whole-file checks never delay its
        # listing, hover or resolve.
        self.scheduler = DocumentScheduler()
        self.backends = BackendPool()  # model backends loaded once per server

    def header_context(self, text: str, path: str) -> HeaderContext | None:
        """What the build's preprocessor makes of the buffer's directives (cached)."""
        if not self.settings.preprocess:
            return None
        # Listing waits for this, so the preprocessor is gcc's fast one where
        # there is one (the compile check's compiler may be a slow wrapper),
        # unless the compile database names the build's own.
        cc = "gcc" if shutil.which("gcc") else self.settings.compiler.cc
        build = BuildFlags(
            cc=cc,
            include_dirs=self.settings.include_paths,
            database=self.settings.compile_commands or None,
            flags=self.settings.compiler.flags,
            timeout_s=PREPROCESS_TIMEOUT_S,
        )
        context, warnings = build_context(text, path, build, self.contexts)
        for warning in warnings:
            log.info("%s: %s", path, warning)
        return context

    def include_dirs(self, doc: Document) -> tuple[str, ...]:
        """Include paths for a document: the settings, then compile_commands.json."""
        found = self.settings.include_paths
        if self.settings.compile_commands:
            found += database_include_paths(self.settings.compile_commands, doc.path)
        return found

    def forget_results(self) -> None:
        """Drop every cached result (after a settings change)."""
        self.shown_warnings.clear()
        for doc in self.documents:
            doc.forget()

    async def in_pool(self, doc: Document, work: Callable[[], T]) -> T:
        """Run `work` in the document's queue; ContentModified if it changes first."""
        return await self.scheduler.run(doc, INTERACTIVE, work)

    async def analysed(self, doc: Document, offset: int) -> Analysed | None:
        """The analysis of the function at `offset` (cached per version)."""
        piece = doc.function_slice(offset)
        whole = doc.tree.has_errors and len(doc.data) <= WHOLE_FILE_MAX_BYTES
        if piece is None and not whole:
            return None
        # Outside any clean function definition, a broken buffer is analysed whole:
        # the front end recovers functions that tree-sitter wrapped in ERROR nodes.
        key = ("analysed", piece.function if piece is not None else None)
        text = piece.text if piece is not None else doc.text
        pending: asyncio.Future[Analysed] | None = doc.peek(key)
        if pending is None:
            include = self.include_dirs(doc)
            settings = self.settings
            pending = queued(
                self.scheduler.run(
                    doc,
                    INTERACTIVE,
                    lambda: analyse(
                        text,
                        doc.path,
                        include,
                        settings,
                        self.header_context(text, doc.path),
                    ),
                )
            )
            doc.store(key, pending, per_function=True)
        return await until_changed(doc, asyncio.shield(pending))


def queued(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """`work` as a task whose failure is fine to leave unread (a stale version)."""
    task = asyncio.ensure_future(work)
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    return task


async def until_changed(doc: Document, work: asyncio.Future[T]) -> T:
    """The result of `work`; ContentModified if the document changes first."""
    changed: asyncio.Future[Any] = asyncio.ensure_future(doc.changed.wait())
    try:
        done, _ = await asyncio.wait(
            [work, changed], return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        changed.cancel()
    if work not in done:
        raise JsonRpcContentModified(f"{doc.uri} changed; the result is stale")
    return work.result()


def _features() -> list[Callable[[AcclsServer], Any]]:
    from accls.server.features import (
        code_actions,
        commands,
        configuration,
        diagnostics,
        hover,
        lifecycle,
        sync,
    )

    return [
        sync.register,
        configuration.register,
        diagnostics.register,
        code_actions.register,
        hover.register,
        commands.register,
        lifecycle.register,
    ]


def build_server() -> AcclsServer:
    """The server with every feature registered."""
    server = AcclsServer()
    for register in _features():
        register(server)
    return server
