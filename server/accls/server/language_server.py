"""AcclsServer: open documents, settings, the worker pool, and document events."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any, Generic, ParamSpec, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from accls import __version__
from accls.analysis import ProgramSummaries
from accls.frontend import ContextCache, HeaderContext
from accls.frontend.fortran_form import is_fortran
from accls.frontend.fortran_modules import module_folders
from accls.frontend.incremental import ByteRange
from accls.hybrid import BackendPool
from accls.project import BuildFlags, build_context
from accls.server.documents import (
    WHOLE_FILE_MAX_BYTES,
    Document,
    DocumentStore,
    LineShift,
    Slot,
)
from accls.server.protocol import AcclsProtocol
from accls.server.scheduler import CHECKS, INTERACTIVE, DocumentScheduler
from accls.server.suggestions import BufferAnalysis, analyze_buffer
from accls.settings import Settings, database_include_paths

__all__ = [
    "ANALYSED",
    "WHOLE",
    "AcclsServer",
    "Events",
    "Signal",
    "queued",
    "until_changed",
]

log = logging.getLogger(__name__)

PREPROCESS_TIMEOUT_S = 3.0
"""The editor's bound on preprocessing a buffer's directives (cached per skeleton)."""
T = TypeVar("T")
P = ParamSpec("P")

ANALYSED: Slot[ByteRange | None, asyncio.Future[BufferAnalysis]] = Slot(
    "analysed", per_function=True
)
"""The analysis of one function (by its byte range; None: the broken buffer whole)."""

WHOLE: Slot[None, asyncio.Future[BufferAnalysis]] = Slot("whole")
"""The analysis of the whole buffer, in the checks' lane (lenses, whole-file passes)."""

_WITH_WHOLE: Slot[ByteRange, BufferAnalysis] = Slot("with whole", per_function=True)
"""A function's analysis joined with the whole buffer's, by the function's range."""


class Signal(Generic[P]):
    """Callbacks that features connect at registration and the server emits."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[P, None]] = []

    def connect(self, callback: Callable[P, None]) -> None:
        """Call `callback` on every emit, after those connected before it."""
        self._callbacks.append(callback)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        """Call every connected callback, in the order they were connected."""
        for callback in self._callbacks:
            callback(*args, **kwargs)


class Events:
    """What happens to documents and settings; features connect what they need."""

    def __init__(self) -> None:
        self.opened: Signal[[Document]] = Signal()
        self.changed: Signal[[Document, list[LineShift]]] = Signal()
        self.closed: Signal[[str]] = Signal()  # the closed document's URI
        self.settings_changed: Signal[[]] = Signal()  # cached results are gone
        # The analyses were dropped for fresher facts (the workspace index).
        self.refreshed: Signal[[]] = Signal()
        self.initialized: Signal[[]] = Signal()  # the settings are read
        self.shutdown: Signal[[]] = Signal()


class AcclsServer(LanguageServer):
    """The server: open documents, settings, and a worker pool for the analysis."""

    def __init__(self) -> None:
        super().__init__("accls", __version__, protocol_cls=AcclsProtocol)
        self.documents = DocumentStore()
        self.settings = Settings()
        self.raw_settings: Any = None  # the wire object the settings came from
        self.client_name = ""  # the client's clientInfo.name ("" when it gave none)
        self.startup_problems: list[str] = []
        self.events = Events()
        self._shown: set[str] = set()  # warnings shown once per settings
        self.contexts = ContextCache()  # preprocessed directives, by skeleton
        # Analysis and compiles run off the event loop, so edits and cancellations
        # are read while they work; each document queues its own work, so a slow
        # one never delays another, and its whole-file checks never delay its
        # listing, hover or resolve.
        self.scheduler = DocumentScheduler()
        self.backends = BackendPool()  # model backends loaded once per server
        # The other files' summaries as a document sees them; the workspace
        # index feature sets it (None: no index, a file analysed alone).
        self.programs: Callable[[str], ProgramSummaries | None] = _no_program
        # The workspace's folders that define Fortran modules (looked up once
        # per settings): a Fortran buffer's `use` finds them as through -I.
        self._module_dirs: tuple[str, ...] | None = None

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
        if is_fortran(doc.path):
            found += tuple(d for d in self._module_folders() if d not in found)
        return found

    def _module_folders(self) -> tuple[str, ...]:
        if self._module_dirs is None:
            try:
                folders = list(self.workspace.folders.values())
                uri = folders[0].uri if folders else self.workspace.root_uri
            except RuntimeError:  # no workspace before `initialize`
                return ()
            root = to_fs_path(uri) if uri else None
            self._module_dirs = (
                module_folders(root) if root and os.path.isdir(root) else ()
            )
        return self._module_dirs

    def fortran_changed(self, path: str) -> None:
        """A Fortran file was saved, created or deleted: look for modules again.

        A module file added after the folders were listed would otherwise be
        found only after a settings change; open Fortran buffers are analysed
        again with the new folders.
        """
        if not is_fortran(path):
            return
        self._module_dirs = None
        for doc in self.documents:
            if is_fortran(doc.path):
                doc.forget()

    def forget_results(self) -> None:
        """Drop every cached result (after a settings change)."""
        self._shown.clear()
        self._module_dirs = None
        for doc in self.documents:
            doc.forget()

    def warn_once(self, message: str) -> None:
        """Show a warning once until the settings change."""
        if message in self._shown:
            return
        self._shown.add(message)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    async def in_pool(self, doc: Document, work: Callable[[], T]) -> T:
        """Run `work` in the document's queue; ContentModified if it changes first."""
        return await self.scheduler.run(doc, INTERACTIVE, work)

    def analysis_input(
        self, doc: Document, offset: int
    ) -> tuple[ByteRange | None, str] | None:
        """The function (None: the whole buffer) and text `analysed` reads there."""
        piece = doc.function_slice(offset)
        whole = (doc.tree.has_errors or doc.tree.cpp) and len(
            doc.data
        ) <= WHOLE_FILE_MAX_BYTES
        if piece is None and not whole:
            return None
        # Outside any clean function definition, a broken buffer is analysed whole:
        # the front end recovers functions that tree-sitter wrapped in ERROR nodes.
        if piece is None:
            return None, doc.text
        return piece.function, piece.text

    async def analysed(self, doc: Document, offset: int) -> BufferAnalysis | None:
        """The analysis of the function at `offset` (cached per version)."""
        found_input = self.analysis_input(doc, offset)
        if found_input is None:
            return None
        key, text = found_input
        pending = doc.peek(ANALYSED, key)
        if pending is None:
            include = self.include_dirs(doc)
            settings = self.settings
            program = self.programs(doc.path)
            entire = key is None and not doc.tree.has_errors
            pending = queued(
                self.scheduler.run(
                    doc,
                    INTERACTIVE,
                    lambda: analyze_buffer(
                        text,
                        doc.path,
                        include,
                        settings,
                        self.header_context(text, doc.path),
                        program,
                        entire=entire,
                    ),
                )
            )
            doc.store(ANALYSED, key, pending)
        found = await until_changed(doc, asyncio.shield(pending))
        if key is None:
            return found
        return self._with_whole(doc, key, found)

    def _with_whole(
        self, doc: Document, key: ByteRange, found: BufferAnalysis
    ) -> BufferAnalysis:
        """The slice's analysis with the whole buffer's, if that is in (never waits).

        The whole-file passes need every call of the file, which a slice blanks;
        the whole buffer is analysed once per version in the checks' lane, and
        until it is in, the slice answers alone (the hover says so).
        """
        joined = doc.peek(_WITH_WHOLE, key)
        if joined is not None:
            return joined
        whole = self.whole_if_in(doc)
        if whole is None:
            return found
        joined = replace(found, whole=whole, memo={})
        doc.store(_WITH_WHOLE, key, joined)
        return joined

    def whole_if_in(self, doc: Document) -> BufferAnalysis | None:
        """The whole buffer's analysis a slice joins, if it is in (never waits)."""
        if doc.tree.has_errors or len(doc.data) > WHOLE_FILE_MAX_BYTES:
            return None  # a call in a part that does not parse would be missed
        pending = self.whole(doc)
        if not pending.done() or pending.cancelled() or pending.exception():
            return None
        return pending.result()

    def whole(self, doc: Document) -> asyncio.Future[BufferAnalysis]:
        """The analysis of the whole buffer, once per version, in the checks' lane.

        One pass over the file costs about what one function's slice does, and
        the checks' lane keeps it from delaying hover and listing.
        """
        pending = doc.peek(WHOLE, None)
        if pending is None:
            text, path, settings = doc.text, doc.path, self.settings
            include, program = self.include_dirs(doc), self.programs(doc.path)
            entire = not doc.tree.has_errors
            pending = queued(
                self.scheduler.run(
                    doc,
                    CHECKS,
                    lambda: analyze_buffer(
                        text,
                        path,
                        include,
                        settings,
                        self.header_context(text, path),
                        program,
                        entire=entire,
                    ),
                )
            )
            doc.store(WHOLE, None, pending)
        return pending


def _no_program(path: str) -> ProgramSummaries | None:
    return None


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
