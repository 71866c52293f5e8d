r"""All position conversion: UTF-8 byte offsets and points <-> LSP positions.

The front end speaks UTF-8 bytes: offsets and (row, byte column) points. LSP
positions count a line's characters in the negotiated encoding: UTF-16 code units
(the default), UTF-8 bytes or UTF-32 code points. Lines end at "\\n" (a "\\r"
before it belongs to the line break). Positions past the end of a line or of the
buffer are clamped, as the protocol asks.
"""

from __future__ import annotations

from bisect import bisect_right

from lsprotocol import types

from accls.frontend import Span

__all__ = ["InvalidRange", "LineIndex", "encoding_name"]


class InvalidRange(ValueError):
    """A range whose end comes before its start."""


def encoding_name(encoding: object) -> str:
    """The negotiated encoding as "utf-8", "utf-16" or "utf-32" (utf-16 if unknown)."""
    text = str(getattr(encoding, "value", encoding) or "utf-16").lower()
    return text if text in ("utf-8", "utf-16", "utf-32") else "utf-16"


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", errors="surrogateescape"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


class LineIndex:
    """Line starts of a UTF-8 buffer, for conversions in one encoding."""

    def __init__(self, data: bytes, encoding: str = "utf-16") -> None:
        self.data = data
        self.encoding = encoding_name(encoding)
        starts = [0]
        find = data.find
        at = find(b"\n")
        while at >= 0:
            starts.append(at + 1)
            at = find(b"\n", at + 1)
        self._starts = starts

    @property
    def line_count(self) -> int:
        """How many lines the buffer has (an empty last line counts)."""
        return len(self._starts)

    def line_bytes(self, line: int) -> bytes:
        """The bytes of 0-based `line` without its line break."""
        start = self._starts[line]
        end = self._starts[line + 1] - 1 if line + 1 < len(self._starts) else None
        chunk = self.data[start:end] if end is not None else self.data[start:]
        return chunk[:-1] if chunk.endswith(b"\r") else chunk

    def offset(self, position: types.Position) -> int:
        """The byte offset of an LSP position (clamped to the line and buffer)."""
        if position.line >= len(self._starts):
            return len(self.data)
        chunk = self.line_bytes(position.line)
        start = self._starts[position.line]
        if self.encoding == "utf-8":
            column = min(position.character, len(chunk))
            # Never split a character: back up to its first byte.
            while 0 < column < len(chunk) and chunk[column] & 0xC0 == 0x80:
                column -= 1
            return start + column
        text = chunk.decode("utf-8", errors="surrogateescape")
        wanted = position.character
        units = 0
        used = 0
        for ch in text:
            width = 1 if self.encoding == "utf-32" or ord(ch) <= 0xFFFF else 2
            if units + width > wanted:
                break
            units += width
            used += len(ch.encode("utf-8", errors="surrogateescape"))
        return start + used

    def byte_range(self, lsp_range: types.Range) -> tuple[int, int]:
        """The byte offsets [start, end) of an LSP range; InvalidRange if reversed."""
        start = self.offset(lsp_range.start)
        end = self.offset(lsp_range.end)
        if end < start:
            raise InvalidRange(
                f"range end {lsp_range.end.line}:{lsp_range.end.character} is "
                f"before its start {lsp_range.start.line}:{lsp_range.start.character}"
            )
        return start, end

    def line_of(self, offset: int) -> int:
        """The 0-based line holding byte `offset`."""
        return bisect_right(self._starts, max(0, offset)) - 1

    def position(self, offset: int) -> types.Position:
        """The LSP position of a byte offset."""
        offset = max(0, min(offset, len(self.data)))
        line = self.line_of(offset)
        return self.point(line, offset - self._starts[line])

    def point(self, row: int, column: int) -> types.Position:
        """The LSP position of a tree-sitter point (row, byte column)."""
        if row >= len(self._starts):
            return self.position(len(self.data))
        prefix = self.line_bytes(row)[:column]
        if self.encoding == "utf-8":
            return types.Position(line=row, character=len(prefix))
        text = prefix.decode("utf-8", errors="surrogateescape")
        return types.Position(line=row, character=_units(text, self.encoding))

    def span_range(self, span: Span) -> types.Range:
        """The LSP range of a front-end Span."""
        return types.Range(start=self.point(*span.start), end=self.point(*span.end))

    def offsets_range(self, start: int, end: int) -> types.Range:
        """The LSP range of byte offsets [start, end)."""
        return types.Range(start=self.position(start), end=self.position(end))
