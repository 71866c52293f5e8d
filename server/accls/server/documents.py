"""Open documents: text, version, incremental tree, and results cached per version."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlparse

from lsprotocol import types

from accls.frontend.incremental import FunctionSlice, IncrementalTree
from accls.server.convert import LineIndex

__all__ = [
    "WHOLE_FILE_MAX_BYTES",
    "Document",
    "DocumentStore",
    "LineShift",
    "uri_path",
]

T = TypeVar("T")

FUNCTIONS_KEPT = 48
"""Function slices and analyses kept per document version (about 0.6 MB each for
a 3,000-line file: the slice is the whole buffer with other bodies blanked)."""


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


class Document:
    """One open buffer. Results are cached per version and dropped when it changes."""

    def __init__(self, uri: str, version: int, text: str, encoding: str) -> None:
        self.uri = uri
        self.path = uri_path(uri)
        self.version = version
        self.encoding = encoding
        self.tree = IncrementalTree(text.encode("utf-8", errors="surrogateescape"))
        self._text: str | None = text
        self._index: LineIndex | None = None
        self._cache: dict[object, object] = {}
        # Per-function results (slices, analyses) in least-recently-used order:
        # each holds a copy of the buffer, so only the last few are kept.
        self._functions: OrderedDict[object, None] = OrderedDict()
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

    def cached(self, key: object, compute: Callable[[], T]) -> T:
        """The result for `key` at this version, computed once."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]  # type: ignore[return-value]

    def peek(self, key: object) -> Any:
        """The cached result for `key` at this version, or None."""
        if key in self._functions:
            self._functions.move_to_end(key)
        return self._cache.get(key)

    def items(self, tag: str) -> list[tuple[object, Any]]:
        """Cached (key, value) pairs whose key is a tuple `(tag, key)`."""
        return [
            (key[1], value)
            for key, value in self._cache.items()
            if isinstance(key, tuple) and len(key) == 2 and key[0] == tag
        ]

    def store(self, key: object, value: object, *, per_function: bool = False) -> None:
        """Cache `value` for `key` at this version (`per_function`: bounded LRU)."""
        self._cache[key] = value
        if per_function:
            self._functions[key] = None
            self._functions.move_to_end(key)
            while len(self._functions) > FUNCTIONS_KEPT:
                old, _ = self._functions.popitem(last=False)
                self._cache.pop(old, None)

    def forget(self) -> None:
        """Drop every cached result of this version."""
        self._cache.clear()
        self._functions.clear()

    def function_slice(self, offset: int) -> FunctionSlice | None:
        """The buffer reduced to the function at `offset` (cached per version)."""
        found = self.tree.function_at(offset)
        if found is None:
            return None
        key = ("slice", found)
        piece: FunctionSlice | None = self.peek(key)
        if piece is None:
            piece = self.tree.function_slice(offset)
            self.store(key, piece, per_function=True)
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

    def __iter__(self) -> Any:
        return iter(list(self._docs.values()))
