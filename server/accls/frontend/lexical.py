"""Lexical facts tree-sitter's error recovery hides: an unterminated comment."""

from __future__ import annotations

import re

from accls.frontend.model import Span

__all__ = ["blank_unterminated_comment", "unterminated_comment"]

# Tokens that can contain `/*` without opening a comment, and comments themselves.
_TOKEN = re.compile(
    rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/|/\*', re.DOTALL
)


def unterminated_comment(data: bytes) -> Span | None:
    """The `/*` that opens an unterminated comment, if `data` has one."""
    for match in _TOKEN.finditer(data):
        if match.group() == b"/*":
            start = match.start()
            line = data.count(b"\n", 0, start)
            column = start - (data.rfind(b"\n", 0, start) + 1)
            return Span(start, start + 2, (line, column), (line, column + 2))
    return None


def blank_unterminated_comment(data: bytes) -> bytes:
    """`data` with an unterminated `/* ...` comment blanked to the end.

    A C compiler reads everything after such a `/*` as comment; tree-sitter
    instead recovers and parses it as code, so a loop there would get a pragma.
    Blanks keep the newlines, so every byte offset and line stays the same.
    """
    span = unterminated_comment(data)
    if span is None:
        return data
    start = span.start_byte  # the comment runs to the end of the file
    return data[:start] + re.sub(rb"[^\n]", b" ", data[start:])
