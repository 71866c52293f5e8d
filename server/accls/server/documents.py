"""Open documents: text, version, incremental tree, and results cached per version."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast
from urllib.parse import unquote, urlparse

from lsprotocol import types

from accls.frontend import is_cpp
from accls.frontend.incremental import ByteRange, FunctionSlice, IncrementalTree
from accls.server.convert import LineIndex

__all__ = [
    "WHOLE_FILE_MAX_BYTES",
    "Document",
    "DocumentStore",
    "LineShift",
    "Slot",
    "uri_path",
]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

FUNCTIONS_KEPT = 48
"""Entries kept per function-keyed slot and document version (a slice or an
analysis is about 0.6 MB for a 3,000-line file: the whole buffer with other
bodies blanked). Each slot counts its own, so the per-loop `restrict` and
rewrite entries of a listing never push out the analyses it is listed from."""


WHOLE_FILE_MAX_BYTES = 1_000_000
"""Work on the whole buffer (checks, a broken buffer's analysis) stops here:
a 5 MB file took minutes and a gigabyte. Per-function work goes on."""


def uri_path(uri: str) -> str:
    """The file system path of a file:// URI, else the URI itself."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri


@dataclass(frozen=True, slots=True)
class LineShift:
    """One applied change in lines: rows [first, last] became `new_lines` rows."""

    first: int
    last: int
    new_lines: int


class Slot(Generic[K, V]):
    """A typed family of cached results: `doc.peek(slot, key)` is a `V | None`.

    Slots compare by identity, so two with the same name never share entries.
    `per_function` entries (slices, analyses) each hold a copy of the buffer:
    only the last FUNCTIONS_KEPT of each slot are kept.
    """

    __slots__ = ("name", "per_function")

    def __init__(self, name: str, *, per_function: bool = False) -> None:
        self.name = name
        self.per_function = per_function

    def __repr__(self) -> str:
        return f"Slot({self.name!r})"


_Entry = tuple[Slot[object, object], object]

_SLICE: Slot[ByteRange, FunctionSlice] = Slot("slice", per_function=True)
"""The buffer reduced to one function, by the function's byte range."""


class Document:
    """One open buffer. Results are cached per version and dropped when it changes."""

    def __init__(self, uri: str, version: int, text: str, encoding: str) -> None:
        self.uri = uri
        self.path = uri_path(uri)
        self.version = version
        self.encoding = encoding
        self.tree = IncrementalTree(
            text.encode("utf-8", errors="surrogateescape"), cpp=is_cpp(self.path)
        )
        self._text: str | None = text
        self._index: LineIndex | None = None
        self._cache: dict[_Entry, object] = {}
        # Per-function results (slices, analyses) in least-recently-used order,
        # by slot: each holds a copy of the buffer, so only the last few are kept.
        self._functions: dict[Slot[object, object], OrderedDict[_Entry, None]] = {}
        self.changed = asyncio.Event()  # set when this version is superseded

    @property
    def data(self) -> bytes:
        """The buffer as UTF-8 bytes."""
        return self.tree.data

    @property
    def text(self) -> str:
        """The buffer as text."""
        if self._text is None:
            self._text = self.data.decode("utf-8", errors="surrogateescape")
        return self._text

    @property
    def index(self) -> LineIndex:
        """Position conversion for this version."""
        if self._index is None:
            self._index = LineIndex(self.data, self.encoding)
        return self._index

    def peek(self, slot: Slot[K, V], key: K) -> V | None:
        """The result cached in `slot` for `key` at this version, or None."""
        entry = self._entry(slot, key)
        recent = self._functions.get(entry[0])
        if recent is not None and entry in recent:
            recent.move_to_end(entry)
        # Only store() writes an entry, and it takes a V for a Slot[K, V].
        return cast("V | None", self._cache.get(entry))

    def store(self, slot: Slot[K, V], key: K, value: V) -> None:
        """Cache `value` in `slot` for `key` at this version."""
        entry = self._entry(slot, key)
        self._cache[entry] = value
        if slot.per_function:
            recent = self._functions.setdefault(entry[0], OrderedDict())
            recent[entry] = None
            recent.move_to_end(entry)
            while len(recent) > FUNCTIONS_KEPT:
                old, _ = recent.popitem(last=False)
                self._cache.pop(old, None)

    def entries(self, slot: Slot[K, V]) -> list[tuple[K, V]]:
        """Every (key, value) cached in `slot` at this version, oldest first."""
        return [
            (cast("K", key), cast("V", value))
            for (owner, key), value in self._cache.items()
            if owner is slot
        ]

    @staticmethod
    def _entry(slot: Slot[K, V], key: K) -> _Entry:
        return (cast("Slot[object, object]", slot), key)

    def forget(self) -> None:
        """Drop every cached result of this version."""
        self._cache.clear()
        self._functions.clear()

    def function_slice(self, offset: int) -> FunctionSlice | None:
        """The buffer reduced to the function at `offset` (cached per version)."""
        found = self.tree.function_at(offset)
        if found is None:
            return None
        piece = self.peek(_SLICE, found)
        if piece is None:
            piece = self.tree.function_slice(offset)
            if piece is not None:
                self.store(_SLICE, found, piece)
        return piece

    def apply(
        self,
        version: int,
        changes: Sequence[types.TextDocumentContentChangeEvent],
    ) -> list[LineShift]:
        """Apply content changes in order; what each did to the lines."""
        shifts: list[LineShift] = []
        try:
            for change in changes:
                shifts.append(self._apply_one(change))
        finally:
            # Even a bad change ends this version: earlier changes were applied.
            self._new_version(version)
        return shifts

    def _apply_one(self, change: types.TextDocumentContentChangeEvent) -> LineShift:
        new = change.text.encode("utf-8", errors="surrogateescape")
        if isinstance(change, types.TextDocumentContentChangePartial):
            index = self.index
            start, end = index.byte_range(change.range)
            first, last = index.line_of(start), index.line_of(end)
        else:
            start, end = 0, len(self.data)
            first, last = 0, self.index.line_count - 1
        self.tree.edit(start, end, new)
        self._text = None
        self._index = None
        return LineShift(first, last, new.count(b"\n") + 1)

    def _new_version(self, version: int) -> None:
        self.version = version
        self.forget()
        self.changed.set()
        self.changed = asyncio.Event()


class DocumentStore:
    """Every open document, by URI."""

    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}

    def open(self, uri: str, version: int, text: str, encoding: str) -> Document:
        """Start tracking a buffer (replacing one with the same URI)."""
        old = self._docs.get(uri)
        if old is not None:
            old.changed.set()
        doc = self._docs[uri] = Document(uri, version, text, encoding)
        return doc

    def get(self, uri: str) -> Document | None:
        """The open document, if any."""
        return self._docs.get(uri)

    def close(self, uri: str) -> None:
        """Stop tracking a buffer; pending work on it is abandoned."""
        doc = self._docs.pop(uri, None)
        if doc is not None:
            doc.changed.set()

    def __iter__(self) -> Iterator[Document]:
        return iter(list(self._docs.values()))
