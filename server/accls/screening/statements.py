"""The statement a reference stands in, found in the text, for the graph's nodes."""

from __future__ import annotations

from collections.abc import Sequence

from accls.frontend import Span

__all__ = ["Statements"]

_ENDS = frozenset(b";{}")
_REACH = 4000  # bytes searched either way: a statement longer than this is cut


class Statements:
    """The statements of one text, located by the bytes of their references.

    A statement runs from the last `;`, `{` or `}` before a reference (outside
    parentheses, within its innermost loop's body) to the next `;` after it.
    """

    def __init__(self, text: str, bodies: Sequence[Span] = ()) -> None:
        self._data = text.encode("utf-8", errors="surrogateescape")
        self._bodies = sorted((b.start_byte, b.end_byte) for b in bodies)
        self._starts: dict[int, int] = {}

    def _floor(self, byte: int) -> int:
        """Where the innermost loop body holding `byte` starts (after its header)."""
        inside = [a for a, b in self._bodies if a <= byte < b]
        return max([max(0, byte - _REACH), *inside])

    def _start(self, byte: int) -> int:
        data, depth = self._data, 0
        floor = self._floor(byte)
        k = min(byte, len(data)) - 1
        while k >= floor:
            c = data[k]
            if c == ord(")"):
                depth += 1
            elif c == ord("("):
                depth -= 1
            elif c in _ENDS and depth <= 0:
                break
            k -= 1
        k += 1
        while k < byte and data[k : k + 1].isspace():
            k += 1
        return k

    def _end(self, byte: int) -> int:
        data, depth = self._data, 0
        k, ceiling = byte, min(len(data), byte + _REACH)
        while k < ceiling:
            c = data[k]
            if c == ord("("):
                depth += 1
            elif c == ord(")"):
                depth -= 1
            elif c in _ENDS and depth <= 0:
                return k + 1 if c == ord(";") else k
            k += 1
        return k

    def line_of(self, span: Span) -> int:
        """The 1-based line the statement holding `span` starts on."""
        start = self._starts.get(span.start_byte)
        if start is None:
            start = self._start(span.start_byte)
            self._starts[span.start_byte] = start
        return self._data.count(b"\n", 0, start) + 1

    def text_at(self, line: int, limit: int = 60) -> str:
        """The statement starting on `line` (its first `limit` characters, one line)."""
        lines = self._data.split(b"\n")
        if not 0 < line <= len(lines):
            return ""
        begin = sum(len(x) + 1 for x in lines[: line - 1])
        begin += len(lines[line - 1]) - len(lines[line - 1].lstrip())
        raw = self._data[begin : self._end(begin)]
        text = " ".join(raw.decode("utf-8", errors="replace").split())
        return text if len(text) <= limit else text[: limit - 1] + "…"
