"""The workspace index: the other files' summaries, built in the background.

After `initialized`, the files of the workspace folder (or of the compile
database) are summarised off the event loop with `$/progress`; `didSave` and
`workspace/didChangeWatchedFiles` re-summarise one file. Code actions never
wait: a document is analysed with what the index holds, and a callee it does
not hold yet is named as still being indexed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from accls.analysis import ProgramSummaries
from accls.frontend.fortran_form import FORTRAN_GLOB
from accls.project import BuildFlags, ProjectIndex, default_cache_dir, find_database
from accls.server.language_server import AcclsServer, queued

__all__ = ["WorkspaceIndex", "register"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class WorkspaceIndex:
    """The server's one index, and the task building it."""

    index: ProjectIndex | None = None
    building: asyncio.Task[None] | None = None
    indexed: asyncio.Event = field(default_factory=asyncio.Event)
    started: bool = False  # after `initialized`: settings changes rebuild it

    def program_for(self, path: str) -> ProgramSummaries | None:
        """What the other files define, as `path` sees it; None without an index."""
        if self.index is None:
            return None
        return self.index.program_for(path)


def _root(ls: AcclsServer) -> str | None:
    folders = list(ls.workspace.folders.values())
    uri = folders[0].uri if folders else ls.workspace.root_uri
    path = to_fs_path(uri) if uri else None
    return path if path and Path(path).is_dir() else None


def _new_index(ls: AcclsServer) -> ProjectIndex | None:
    settings = ls.settings
    root = _root(ls)
    database = settings.compile_commands or None
    if database is None and root is not None:
        candidate = Path(root, "compile_commands.json")
        database = str(candidate) if candidate.is_file() else None
    if database is None and root is not None:
        database = find_database(str(Path(root, "x.c")))
    if root is None and database is not None:
        root = str(Path(database).parent)
    if root is None or not settings.workspace_index:
        return None
    build = BuildFlags(
        include_dirs=settings.include_paths, flags=settings.compiler.flags
    )
    return ProjectIndex(
        root,
        build=build,
        database=database,
        cache_dir=settings.index_cache or default_cache_dir(),
    )


def _refresh(ls: AcclsServer) -> None:
    """Analyses made with older summaries are dropped; diagnostics come again."""
    for doc in ls.documents:
        doc.forget()
    ls.events.refreshed.emit()


async def _build(ls: AcclsServer, state: WorkspaceIndex, index: ProjectIndex) -> None:
    loop = asyncio.get_running_loop()
    token: str | None = None
    window = ls.client_capabilities.window
    if window is not None and window.work_done_progress:
        token = f"accls-index-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(
                    title="accls: indexing the workspace", percentage=0
                ),
            )
        except Exception as exc:  # the client refused the token: no bar
            log.info("no progress bar: %s", exc)
            token = None

    def progress(done: int, total: int, name: str) -> None:
        if token is None:
            return
        report = types.WorkDoneProgressReport(
            message=f"{done}/{total} {name}", percentage=done * 100 // max(total, 1)
        )
        loop.call_soon_threadsafe(ls.work_done_progress.report, token, report)

    try:
        await asyncio.to_thread(index.build, progress)
    except Exception:  # a bug costs the index, never the server
        log.exception("indexing the workspace failed")
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
    _refresh(ls)
    state.indexed.set()
    log.info("indexed %d files (%d parsed)", len(index.files), index.parses)


def _start(ls: AcclsServer, state: WorkspaceIndex) -> None:
    if state.building is not None and not state.building.done():
        state.building.cancel()  # the thread finishes; its result is replaced
    state.indexed.clear()
    state.index = _new_index(ls)
    if state.index is None:
        state.indexed.set()
        return
    state.building = queued(_build(ls, state, state.index))


async def _update(ls: AcclsServer, state: WorkspaceIndex, uri: str) -> None:
    path = to_fs_path(uri)
    index = state.index
    if index is None or path is None or not path.endswith(".c"):
        return
    if state.building is not None and not state.building.done():
        return  # the build reads the file anyway
    try:
        await asyncio.to_thread(index.update, path)
    except Exception:
        log.exception("re-indexing %s failed", path)
        return
    _refresh(ls)


async def _watch(ls: AcclsServer) -> None:
    """Ask the client to report changes to C files, when it can."""
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[
            types.FileSystemWatcher(glob_pattern="**/*.c"),
            # Fortran module files: a `use` finds a module added later.
            types.FileSystemWatcher(glob_pattern=FORTRAN_GLOB),
        ]
    )
    registration = types.Registration(
        id=f"accls-watch-{uuid.uuid4()}",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception as exc:  # no watching: saves still update the index
        log.info("no file watching: %s", exc)


def _fortran_changed(ls: AcclsServer, uri: str) -> None:
    path = to_fs_path(uri)
    if path is not None:
        ls.fortran_changed(path)


def register(server: AcclsServer) -> None:
    """Build the index after `initialized`; update it on saves and file events."""
    state = WorkspaceIndex()
    server.programs = state.program_for

    def initialized() -> None:
        state.started = True
        _start(server, state)
        if state.index is not None:
            queued(_watch(server))

    def settings_changed() -> None:
        if state.started:
            _start(server, state)

    server.events.initialized.connect(initialized)
    server.events.settings_changed.connect(settings_changed)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def saved(ls: AcclsServer, params: types.DidSaveTextDocumentParams) -> None:
        _fortran_changed(ls, params.text_document.uri)
        await _update(ls, state, params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched(
        ls: AcclsServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        for change in params.changes:
            _fortran_changed(ls, change.uri)
            await _update(ls, state, change.uri)
