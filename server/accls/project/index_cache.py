"""The index's cache folder: one JSON file per summarised file, named by its hash."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import platformdirs

from accls.analysis import ArgumentOverlap, Definition, FieldFact
from accls.analysis.global_sources import GlobalLink
from accls.analysis.remote_calls import FileCalls
from accls.project.calls_json import file_calls_from_json, file_calls_to_json
from accls.project.summary_json import (
    definition_from_json,
    definition_to_json,
    field_fact_from_json,
    field_fact_to_json,
    overlap_from_json,
    overlap_to_json,
)

__all__ = ["FileSummaries", "IndexCache", "default_cache_dir"]

# 4: the calls passing one object twice; 5: whether surely one; 6: whether
# one argument text twice (`dot(x, x)`); 7: what global pointers are set from;
# 9: whether a function is an allocator wrapper; 10: every call, with its
# arguments' origins (`calls`); 11: whether each call lies in a loop; 12: whether
# a function returns a table of distinct rows; 13: the device data callers
# hold at each call; 14: files read with the other files' allocator wrappers
# (fresh blocks in their calls and summaries); 15: a macro defined again with
# another value has no integer value (summaries' slices bounded by it); 16:
# whether a function may set or read `errno`, and a call's caller read it after;
# 17: the `T **` parameters a function fills with fresh rows (`row_fills`) or
# keeps the rows of (`row_steady`); 18: each call argument's integer value in its
# caller's file (`values`)
_VERSION = 18


@cache
def code_fingerprint() -> str:
    """A hash of the code that computes summaries (a new accls starts afresh)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in ("files", "frontend", "analysis", "project"):
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".toml") and path.is_file():
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_cache_dir() -> str:
    """The user's cache folder for accls (platformdirs)."""
    return platformdirs.user_cache_dir("accls")


@dataclass(frozen=True, slots=True, kw_only=True)
class FileSummaries:
    """What one file of the project tells the others: its external functions."""

    path: str  # absolute
    key: str  # hash of the text, the flags and the path
    deps: str  # hash of the other files' summaries its own were computed with
    externals: tuple[str, ...]  # the functions it calls but does not define
    definitions: tuple[Definition, ...]  # its non-static functions
    fields: tuple[FieldFact, ...] = ()  # what it stores into struct fields
    # Its calls of other files' functions that pass one object to two arguments.
    overlaps: tuple[ArgumentOverlap, ...] = ()
    # What it sets global pointers from, and what its calls pass (`gp = &A[1]`).
    global_links: tuple[GlobalLink, ...] = ()
    # Every call of the file, for proofs about all calls of a function; None
    # when the file could not be read (its calls are unknown).
    calls: FileCalls | None = None

    def to_json(self) -> dict[str, Any]:
        """The record as plain JSON values."""
        return {
            "version": _VERSION,
            "path": self.path,
            "key": self.key,
            "deps": self.deps,
            "externals": list(self.externals),
            "definitions": [definition_to_json(d) for d in self.definitions],
            "fields": [field_fact_to_json(f) for f in self.fields],
            "overlaps": [overlap_to_json(o) for o in self.overlaps],
            "global_links": [[k.target, list(k.objects)] for k in self.global_links],
            "calls": None if self.calls is None else file_calls_to_json(self.calls),
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> FileSummaries:
        """The record `to_json` wrote; KeyError/TypeError/ValueError when malformed."""
        if raw.get("version") != _VERSION:
            raise ValueError("another version of the cache")
        return FileSummaries(
            path=str(raw["path"]),
            key=str(raw["key"]),
            deps=str(raw["deps"]),
            externals=tuple(sys.intern(str(n)) for n in raw["externals"]),
            definitions=tuple(definition_from_json(d) for d in raw["definitions"]),
            fields=tuple(field_fact_from_json(f) for f in raw["fields"]),
            overlaps=tuple(overlap_from_json(o) for o in raw["overlaps"]),
            global_links=tuple(
                GlobalLink(str(t), tuple(sys.intern(str(o)) for o in objects))
                for t, objects in raw["global_links"]
            ),
            calls=(
                None if raw["calls"] is None else file_calls_from_json(raw["calls"])
            ),
        )


class IndexCache:
    """Records by key in one folder; a record that cannot be read is a miss."""

    def __init__(self, folder: str | None) -> None:
        # One folder per version of the summarising code, so an upgrade starts afresh.
        name = f"index-v{_VERSION}-{code_fingerprint()}"
        self.folder = Path(folder) / name if folder else None

    def load(self, key: str) -> FileSummaries | None:
        """The record stored under `key`, if any."""
        if self.folder is None:
            return None
        try:
            raw = json.loads((self.folder / f"{key}.json").read_text("utf-8"))
            return FileSummaries.from_json(raw)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def store(self, record: FileSummaries) -> None:
        """Write `record` through a temporary and a rename; a failure is ignored."""
        if self.folder is None:
            return
        try:
            # `dumps` encodes in C; `dump` streams through the pure-Python encoder.
            text = json.dumps(record.to_json(), separators=(",", ":"))
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, self.folder / f"{record.key}.json")
        except OSError:
            return  # a cache that cannot be written only costs a rebuild
