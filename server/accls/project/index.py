"""The workspace index: summaries of the functions of every file of a project.

Given a compile database or a folder, each translation unit is parsed with its
own flags and its external functions are summarised; the records persist in a
cache folder keyed by content hash, so a restart re-reads them instead of
parsing. A file's summaries depend on the other files' (a call chain across
files), so a record also keeps the hash of the summaries it was computed with,
and the index re-summarises a file when they change, a few rounds at most. A
file is parsed told the other files' allocator wrappers (`with_program`), so its
call records and summaries take their blocks as fresh, as the CLI's and the
server's analysis of the file does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from accls.analysis import (
    ArgumentOverlap,
    ProgramSummaries,
    Summary,
    argument_overlaps,
    file_field_facts,
)
from accls.analysis.global_links import file_global_links
from accls.analysis.global_sources import GlobalLink
from accls.analysis.remote_calls import FileCalls, file_calls
from accls.files import InputError, read_source
from accls.frontend import (
    ContextCache,
    Function,
    HeaderContext,
    SourceFile,
    parse_source,
)
from accls.project.called_allocators import (
    Called,
    allocating_first,
    called_allocators,
    external_calls,
)
from accls.project.compile_db import exports_symbols
from accls.project.context import BuildFlags, build_context, with_program
from accls.project.definitions import define
from accls.project.file_list import folder_exports, header_texts, project_files
from accls.project.index_cache import FileSummaries, IndexCache
from accls.project.index_edit import Stamp, edited_calls, resummarise, stamp
from accls.project.program_calls import program_calls
from accls.project.rare_collections import rare_collections
from accls.project.summary_json import definition_to_json

__all__ = ["ProjectIndex", "project_files"]

log = logging.getLogger(__name__)

_ROUNDS = 4  # call chains across files longer than this stay unknown
_KEEP_PARSED = 256  # parsed files a build keeps for its later rounds
_MOST_HEADERS = 64  # project headers of one file read for the names they use

Progress = Callable[[int, int, str], None]  # done, total, file


class ProjectIndex:
    """The summaries of a project's files, by file, and the program they make."""

    def __init__(
        self,
        root: str,
        *,
        build: BuildFlags | None = None,
        database: str | None = None,
        cache_dir: str | None = None,
    ) -> None:
        self.root = str(Path(root).resolve())
        self.database = database
        self._build = replace(build or BuildFlags(), database=database)
        self._cache = IndexCache(cache_dir)
        # A re-summarised file whose directives did not change is not preprocessed.
        self._contexts = ContextCache(64)
        self._records: dict[str, FileSummaries] = {}
        self._pending: set[str] = set()
        self._stamps: dict[str, Stamp] = {}  # by file: what its functions were
        self._stamped: dict[str, str] = {}  # by file: the key its stamp is of
        self._last_context: dict[str, HeaderContext] = {}  # by file: its last one
        self.parses = 0  # files parsed (not read from the cache): for tests and speed
        # Code outside may call the functions (a library's build); None until `build`.
        self.exported: bool | None = None

    def _name(self, path: str) -> str:
        try:
            return (
                os.path.relpath(path, self.root) if path.startswith(self.root) else path
            )
        except ValueError:
            return path

    def _key(self, path: str, text: str) -> str:
        flags = json.dumps(
            [self._build.include_dirs, self._build.defines, self._build.flags]
        )
        blob = f"{path}\0{flags}\0{self.database}\0{text}".encode()
        return hashlib.sha256(blob).hexdigest()

    @property
    def files(self) -> tuple[str, ...]:
        """The files indexed or waiting to be."""
        return tuple(sorted(set(self._records) | self._pending))

    def program_for(self, path: str | None) -> ProgramSummaries:
        """What the other files define, as `path` sees it (its own left out)."""
        own = str(Path(path).resolve()) if path else ""
        records = list(self._records.values())
        definitions = tuple(d for r in records if r.path != own for d in r.definitions)
        fields = tuple(f for r in records if r.path != own for f in r.fields)
        return ProgramSummaries(
            definitions,
            complete=not (self._pending - {own}),
            field_facts=fields,
            whole=True,
            called=frozenset(n for r in records if r.path != own for n in r.externals),
            overlaps=tuple(o for r in records if r.path != own for o in r.overlaps),
            global_links=tuple(
                k for r in records if r.path != own for k in r.global_links
            ),
            calls=program_calls(
                records, own, self.exported, bool(self._pending - {own})
            ),
        )

    def knows(self, path: str) -> bool:
        """True when `path` is a file of the project (indexed or waiting)."""
        own = str(Path(path).resolve())
        return own in self._records or own in self._pending

    def _deps(self, externals: tuple[str, ...], program: ProgramSummaries) -> str:
        used = [definition_to_json(d) for n in externals for d in program.lookup(n)]
        return hashlib.sha256(json.dumps(used, sort_keys=True).encode()).hexdigest()

    def _parse(
        self,
        path: str,
        text: str,
        program: ProgramSummaries,
        same_directives: bool = False,
    ) -> SourceFile:
        """`text` parsed in its build context, told `program`'s allocator wrappers.

        `same_directives`: the file's last context serves (an edit's slice).
        """
        context = self._last_context.get(path) if same_directives else None
        if context is None:
            context, _ = build_context(text, path, self._build, self._contexts)
            self._last_context[path] = context
        told = with_program(context, program)
        return parse_source(text, path, self._build.include_dirs, context=told)

    def _summarise(
        self,
        path: str,
        text: str,
        key: str,
        program: ProgramSummaries,
        parsed: dict[str, tuple[SourceFile, Called]] | None = None,
    ) -> FileSummaries:
        """Summarise `path`; `parsed` holds the files this build already parsed.

        A file in `parsed` keeps its own facts; a later round redoes its summaries,
        and parses it again when the allocator wrappers it calls changed.
        One the front end or the analysis fails on exports nothing (its functions
        stay unknown, so their calls are refused), and is tried again.
        """
        try:
            return self._summarised(path, text, key, program, parsed)
        except Exception:  # a bug must cost a refusal, never the whole index
            log.exception("summarising %s failed", path)
            return FileSummaries(
                path=path, key=key, deps="", externals=(), definitions=()
            )

    def _summarised(
        self,
        path: str,
        text: str,
        key: str,
        program: ProgramSummaries,
        parsed: dict[str, tuple[SourceFile, Called]] | None,
    ) -> FileSummaries:
        kept = parsed.get(path) if parsed is not None else None
        source, last = None, None
        # The wrappers a file calls change its reading (fresh blocks): a parse
        # told others is stale, and so are the call records made from it.
        if kept is not None and kept[1] == called_allocators(
            external_calls(kept[0]), program
        ):
            source, last = kept[0], self._records.get(path)
        if source is None:
            self.parses += 1
            source = self._parse(path, text, program)
        externals = external_calls(source)
        if parsed is not None and (kept is not None or len(parsed) < _KEEP_PARSED):
            parsed[path] = (source, called_allocators(externals, program))
        memo: dict[str, Summary | None] = {}
        found = tuple(
            define(fn, source, program, memo, self._name(path))
            for fn in source.functions
            if not fn.static  # only this file can call a static function
        )
        if self._stamped.get(path) != key:  # a later round: the same text
            stamped = stamp(text)
            if stamped is not None:
                self._stamps[path] = stamped[0]
                self._stamped[path] = key
        if last is not None and last.key == key and last.calls is not None:
            deps = self._deps(externals, program)
            return replace(last, deps=deps, externals=externals, definitions=found)
        return FileSummaries(
            path=path,
            key=key,
            deps=self._deps(externals, program),
            externals=externals,
            definitions=found,
            fields=file_field_facts(source, self._name(path)),
            overlaps=argument_overlaps(source, self._name(path)),
            global_links=file_global_links(source),
            calls=file_calls(
                source,
                self._name(path),
                headers=header_texts(self._last_context.get(path), _MOST_HEADERS),
            ),
        )

    def _edited(
        self, path: str, text: str, key: str, record: FileSummaries
    ) -> FileSummaries | None:
        """`record` after an edit, re-summarising only the functions it touched."""
        old = self._stamps.get(path)
        if self._stamped.get(path) != record.key:
            # A record read from the cache: the stamp is of another text, and
            # functions it shares with the edit may differ in the record's.
            return None
        stamped = stamp(text)
        if old is None or stamped is None or record.fields:
            # Field facts are the whole file's: an edit re-reads all of it.
            return None
        program = self.program_for(path)
        touched: list[ArgumentOverlap] = []
        redone: set[str] = set()
        linked: list[GlobalLink] = []
        calls: list[FileCalls] = []

        def read_calls(fn: Function, source: SourceFile) -> None:
            redone.add(fn.name)
            touched.extend(argument_overlaps(source, self._name(path), (fn,)))
            calls.append(file_calls(source, self._name(path), (fn,)))
            # The slice's links join the old ones: one the edit removed stays
            # until the next whole parse (a refusal), one it adds is never missed.
            linked.extend(file_global_links(source))

        done = resummarise(
            old,
            stamped[0],
            stamped[1],
            record.definitions,
            lambda piece: self._parse(path, piece, program, same_directives=True),
            lambda fn, source: define(fn, source, program, {}, self._name(path)),
            read_calls,
        )
        if done is None:
            return None
        kept = tuple(o for o in record.overlaps if o.caller not in redone)
        self._stamps[path] = stamped[0]
        self._stamped[path] = key
        externals = tuple(sorted(set(record.externals) | done[1]))
        return FileSummaries(
            path=path,
            key=key,
            deps=self._deps(externals, program),
            externals=externals,
            definitions=done[0],
            overlaps=tuple(dict.fromkeys((*kept, *touched))),
            global_links=tuple(dict.fromkeys((*record.global_links, *linked))),
            calls=edited_calls(record.calls, text, redone, calls),
        )

    def _read(self, path: str, text: str | None) -> tuple[str, str] | None:
        if text is None:
            try:
                text = read_source(path)
            except InputError:
                return None
        return text, self._key(path, text)

    @rare_collections()
    def build(self, progress: Progress | None = None) -> None:
        """Index every file of the project, reading what the cache already has."""
        files = project_files(self.root, self.database)
        self.exported = (
            exports_symbols(self.database)
            if self.database
            else folder_exports(self.root)
        )
        self._pending = set(files) - set(self._records)
        read: dict[str, tuple[str, str]] = {}
        parsed: dict[str, tuple[SourceFile, Called]] = {}
        texts = {path: self._read(path, None) for path in files}
        for done, path in enumerate(allocating_first(files, texts)):
            got = texts[path]
            if got is None:
                self._pending.discard(path)
                self._records.pop(path, None)
                continue
            read[path] = got
            cached = self._cache.load(got[1])
            if cached is None:
                cached = self._summarise(path, *got, self.program_for(path), parsed)
                self._cache.store(cached)
            self._records[path] = cached
            self._pending.discard(path)
            if progress is not None:
                progress(done + 1, len(files), self._name(path))
        for gone in set(self._records) - set(files):
            del self._records[gone]
        self._settle(read, parsed)

    @rare_collections()
    def update(self, path: str, text: str | None = None) -> bool:
        """Re-summarise `path`, saved or changed on disk; False when it is no C file."""
        path = str(Path(path).resolve())
        got = self._read(path, text)
        if got is None:
            self._records.pop(path, None)
            return False
        record = self._records.get(path)
        if record is not None and record.key == got[1]:
            return True
        fresh = self._cache.load(got[1])
        if fresh is None and record is not None:
            try:
                fresh = self._edited(path, *got, record)
            except Exception:  # the whole parse below decides
                log.exception("re-summarising an edit of %s failed", path)
        if fresh is None:
            fresh = self._summarise(path, *got, self.program_for(path))
        self._cache.store(fresh)
        self._records[path] = fresh
        self._settle({path: got})
        return True

    def _settle(
        self,
        read: dict[str, tuple[str, str]],
        parsed: dict[str, tuple[SourceFile, Called]] | None = None,
    ) -> None:
        """Re-summarise the files whose callees' summaries changed, a few rounds."""
        for _ in range(_ROUNDS):
            changed = False
            # A file's own definitions win over the program's, and its externals
            # name none of them: one table serves every file of the round.
            program = self.program_for(None)
            for path, record in list(self._records.items()):
                if self._deps(record.externals, program) == record.deps:
                    continue
                got = read.get(path) or self._read(path, None)
                if got is None:
                    continue
                read[path] = got
                fresh = self._summarise(path, *got, program, parsed)
                self._cache.store(fresh)
                self._records[path] = fresh
                if fresh.definitions != record.definitions:
                    changed = True
                    program = self.program_for(None)
            if not changed:
                return
