"""A local SQLite store of applied suggestions and the user's later edits.

The store never leaves the machine: it is a file under the user's data
directory, written only when the `feedback.enabled` setting is on, and read
back by `accls feedback export` for retraining.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
import urllib.parse
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from platformdirs import user_data_dir

__all__ = [
    "ENV_VAR",
    "SCHEMA_VERSION",
    "FeedbackError",
    "FeedbackRecord",
    "FeedbackStore",
    "default_path",
]

ENV_VAR = "ACCLS_FEEDBACK_DB"
"""Environment variable naming the database file; overrides the default path."""

SCHEMA_VERSION = 1
"""Kept in `PRAGMA user_version`; bump it with a migration when the tables change."""

# Another process (a second editor window) may hold the write lock for a moment;
# wait rather than fail.
_BUSY_TIMEOUT_MS = 5000
# Readers of a WAL database never wait on a writer; only a file in another
# journal mode can be locked, and an export should not hang on it.
_READ_TIMEOUT_MS = 1000

_SCHEMA = """
CREATE TABLE applied (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    uri TEXT NOT NULL,
    model TEXT NOT NULL,
    target TEXT NOT NULL,
    source TEXT NOT NULL,
    prompt TEXT NOT NULL,
    loop TEXT NOT NULL,
    pragma TEXT NOT NULL,
    edited_pragma TEXT,
    edited_time TEXT
);
"""

_COLUMNS = "id, time, uri, model, target, source, prompt, loop, pragma, edited_pragma"


class FeedbackError(Exception):
    """The feedback database cannot be opened, read or written; one-line message."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FeedbackRecord:
    """One applied suggestion and, if the user changed it later, the final text."""

    id: int
    time: str
    uri: str
    model: str
    target: str
    source: str
    prompt: str
    loop: str
    suggested: str
    final: str
    edited: bool

    def to_json(self) -> dict[str, Any]:
        """The record as the JSON object `export_jsonl` writes."""
        return {
            "id": self.id,
            "time": self.time,
            "uri": self.uri,
            "model": self.model,
            "target": self.target,
            "source": self.source,
            "prompt": self.prompt,
            "loop": self.loop,
            "suggested": self.suggested,
            "final": self.final,
            "edited": self.edited,
        }


def default_path() -> Path:
    """Where the store lives: `$ACCLS_FEEDBACK_DB`, else the user data directory."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    return Path(user_data_dir("accls", appauthor=False)) / "feedback.sqlite3"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


class FeedbackStore:
    """The feedback database: open (creating it if needed), record, export, close."""

    def __init__(self, path: Path | None = None, *, read_only: bool = False) -> None:
        """Open the store; `read_only` never creates, changes or waits on the file."""
        self.path = Path(path) if path is not None else default_path()
        # The language server may call from worker threads; one lock serialises
        # use of the single connection.
        self._lock = threading.Lock()
        self._conn = self._open_read_only() if read_only else self._open()

    def _open_read_only(self) -> sqlite3.Connection:
        if not self.path.is_file():
            what = "is not a file" if self.path.exists() else "does not exist"
            raise FeedbackError(f"{self.path}: {what}; no feedback database")
        uri = "file:" + urllib.parse.quote(str(self.path.resolve())) + "?mode=ro"
        try:
            conn = self._connect_read_only(uri)
        except sqlite3.OperationalError as exc:
            if "readonly" not in str(exc) and "unable to open" not in str(exc):
                raise FeedbackError(
                    f"{self.path}: cannot read: {_reason(exc)}"
                ) from None
            # Reading a WAL database needs its -shm file; where that cannot be
            # created (a read-only copy), nobody can be writing: read it as is.
            try:
                conn = self._connect_read_only(uri + "&immutable=1")
            except sqlite3.Error as exc:
                raise FeedbackError(
                    f"{self.path}: cannot read: {_reason(exc)}"
                ) from None
        except sqlite3.DatabaseError as exc:
            raise FeedbackError(
                f"{self.path}: not a usable feedback database: {_reason(exc)}"
            ) from None
        return conn

    def _connect_read_only(self, uri: str) -> sqlite3.Connection:
        conn = sqlite3.connect(
            uri,
            uri=True,
            timeout=_READ_TIMEOUT_MS / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version == 0:
                raise FeedbackError(
                    f"{self.path}: not a feedback database (empty or unknown tables)"
                )
            if version > SCHEMA_VERSION:
                raise FeedbackError(
                    f"{self.path}: written by a newer accls (schema {version}, "
                    f"this one reads up to {SCHEMA_VERSION})"
                )
            conn.execute("SELECT count(*) FROM applied").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise FeedbackError(f"{self.path}: is a directory, not a feedback database")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FeedbackError(
                f"{self.path.parent}: cannot create the feedback directory: "
                f"{exc.strerror or exc}"
            ) from None
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=_BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise FeedbackError(f"{self.path}: cannot open: {_reason(exc)}") from None
        try:
            self._prepare_patiently(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise FeedbackError(
                f"{self.path}: not a usable feedback database: {_reason(exc)}"
            ) from None
        except FeedbackError:
            conn.close()
            raise
        return conn

    def _prepare_patiently(self, conn: sqlite3.Connection) -> None:
        """`_prepare`, retried while another process holds the file's lock.

        Switching a new file to WAL needs an exclusive lock, and SQLite answers
        "database is locked" at once, without its busy handler, where waiting
        could deadlock (two processes opening a new file together).
        """
        deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._prepare(conn)
                return
            except sqlite3.OperationalError as exc:
                locked = "locked" in str(exc) or "busy" in str(exc)
                if not locked or time.monotonic() > deadline:
                    raise
                time.sleep(0.02 + random.random() * 0.05)

    def _prepare(self, conn: sqlite3.Connection) -> None:
        conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise FeedbackError(
                f"{self.path}: cannot switch to WAL mode (journal mode is {mode}); "
                "is the file read-only?"
            )
        # BEGIN IMMEDIATE takes the write lock first, so two processes opening a
        # new file at once cannot both create the tables.
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version == 0:
                self._create(conn)
            elif version > SCHEMA_VERSION:
                raise FeedbackError(
                    f"{self.path}: written by a newer accls (schema {version}, "
                    f"this one reads up to {SCHEMA_VERSION})"
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _create(self, conn: sqlite3.Connection) -> None:
        tables = conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
        ).fetchone()[0]
        if tables:
            raise FeedbackError(
                f"{self.path}: an SQLite file that is not a feedback database"
            )
        # One statement, run with execute(): executescript() would commit midway.
        conn.execute(_SCHEMA)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _run(
        self, sql: str, params: tuple[object, ...] = ()
    ) -> tuple[list[Any], int | None, int]:
        """Execute one statement: (rows, lastrowid, rowcount), read under the lock."""
        with self._lock:
            try:
                cursor = self._conn.execute(sql, params)
                return cursor.fetchall(), cursor.lastrowid, cursor.rowcount
            except sqlite3.ProgrammingError as exc:
                raise FeedbackError(f"{self.path}: {_reason(exc)}") from None
            except sqlite3.Error as exc:
                raise FeedbackError(
                    f"{self.path}: feedback database error: {_reason(exc)}"
                ) from None

    def record_applied(
        self,
        *,
        uri: str,
        model: str,
        target: str,
        source: str,
        prompt: str,
        loop: str,
        pragma: str,
    ) -> int:
        """Store a suggestion the user applied; returns its id for `record_edit`."""
        _, row_id, _ = self._run(
            "INSERT INTO applied (time, uri, model, target, source, prompt, loop, "
            "pragma) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (_now(), uri, model, target, source, prompt, loop, pragma),
        )
        if row_id is None:
            raise FeedbackError(f"{self.path}: the insert returned no id")
        return row_id

    def record_edit(self, applied_id: int, edited_pragma: str) -> None:
        """Store the user's later text of an applied pragma ("" if deleted)."""
        _, _, count = self._run(
            "UPDATE applied SET edited_pragma = ?, edited_time = ? WHERE id = ?",
            (edited_pragma, _now(), applied_id),
        )
        if count != 1:
            raise FeedbackError(f"no applied suggestion with id {applied_id}")

    def applied(self) -> list[FeedbackRecord]:
        """Every applied suggestion, oldest first, with its latest edit."""
        rows, _, _ = self._run(f"SELECT {_COLUMNS} FROM applied ORDER BY id")
        records = []
        for row in rows:
            (id_, time, uri, model, target, source, prompt, loop, pragma, edit) = row
            final = pragma if edit is None else edit
            records.append(
                FeedbackRecord(
                    id=id_,
                    time=time,
                    uri=uri,
                    model=model,
                    target=target,
                    source=source,
                    prompt=prompt,
                    loop=loop,
                    suggested=pragma,
                    final=final,
                    edited=final != pragma,
                )
            )
        return records

    def export_jsonl(self, out: TextIO) -> int:
        """Write one JSON object per applied suggestion to `out`; returns the count."""
        records = self.applied()
        for record in records:
            out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        return len(records)

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> FeedbackStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
