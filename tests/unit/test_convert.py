from __future__ import annotations

import pytest
from accls.frontend import parse_source
from accls.server.convert import InvalidRange, LineIndex, encoding_name
from lsprotocol.types import Position, Range

# é: 2 UTF-8 bytes, 1 UTF-16 unit; 😀: 4 bytes, 2 units (outside the BMP).
TEXT = "int a; /* é😀 */ int b;\r\nfor\n\nx😀y"
DATA = TEXT.encode("utf-8")


def position(line: int, character: int) -> Position:
    return Position(line=line, character=character)


@pytest.mark.parametrize(
    ("encoding", "character"),
    [("utf-16", 13), ("utf-8", 16), ("utf-32", 12)],
)
def test_offset_after_non_ascii(encoding: str, character: int) -> None:
    index = LineIndex(DATA, encoding)
    target = DATA.index(b" */")
    assert index.offset(position(0, character)) == target
    assert index.position(target) == position(0, character)


def test_utf16_inside_a_surrogate_pair_stays_before_the_character() -> None:
    index = LineIndex(DATA, "utf-16")
    emoji = DATA.index("😀".encode())
    # Units 11 and 12 are the pair: a position between them cannot split it.
    assert index.offset(position(0, 11)) == emoji
    assert index.offset(position(0, 12)) == emoji


def test_utf8_inside_a_character_backs_up() -> None:
    index = LineIndex(DATA, "utf-8")
    e = DATA.index("é".encode())
    assert index.offset(position(0, e + 1)) == e


def test_crlf_belongs_to_the_line_break() -> None:
    index = LineIndex(DATA, "utf-16")
    end_of_line = DATA.index(b"\r\n")
    assert index.offset(position(0, 10_000)) == end_of_line
    assert index.offset(position(1, 0)) == end_of_line + 2


def test_clamped_past_the_end() -> None:
    index = LineIndex(DATA, "utf-16")
    assert index.offset(position(99, 0)) == len(DATA)
    assert index.position(len(DATA) + 5) == index.position(len(DATA))
    assert index.line_count == 4


def test_last_line_without_newline() -> None:
    index = LineIndex(DATA, "utf-16")
    assert index.position(len(DATA)) == position(3, 4)
    assert index.offset(position(3, 3)) == DATA.index(b"y")


def test_reversed_range() -> None:
    index = LineIndex(DATA)
    with pytest.raises(InvalidRange):
        index.byte_range(Range(start=position(1, 0), end=position(0, 0)))
    assert index.byte_range(Range(start=position(0, 0), end=position(0, 3))) == (0, 3)


def test_spans_from_the_front_end() -> None:
    text = (
        "/* “quoted” */ void f(int n, double *a) {\n"
        "  /* ü */ for (int i = 0; i < n; i++) a[i] = 0;\n}\n"
    )
    source = parse_source(text)
    (loop,) = source.loops()
    for encoding, expected in (("utf-16", 10), ("utf-8", 11)):
        index = LineIndex(source.data, encoding)
        assert index.span_range(loop.keyword).start == position(1, expected)
        assert index.span_range(loop.keyword).end == position(1, expected + 3)


def test_encoding_names() -> None:
    assert encoding_name("utf-8") == "utf-8"
    assert encoding_name(None) == "utf-16"
    assert encoding_name("latin-1") == "utf-16"
