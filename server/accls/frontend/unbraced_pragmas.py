"""Pragmas that are the unbraced body of a statement, hidden from the parser.

`for (p = l; p; p = p->next)` / `#pragma omp task` / `work(p);` compiles: the
task is the loop's body. tree-sitter's C grammar has no pragma statement, so it
ends the `for` with an empty body and reads the pragma and `work(p);` as
siblings after it: the loop seems not to make the tasks, and an `if`'s `else`
after such a body breaks the parse. The same holds under `while`, `if`, `else`
and `do`. Such a pragma line is parsed as a comment instead (`#pr` becomes
`//` and a marker byte, the same length, so every offset and row stays), the
statement after it becomes the body, and the readers of pragmas
(`attach.py`, `constructs.py`) take the marked comment for the pragma it was.
"""

from __future__ import annotations

import re

__all__ = ["MARK", "code_before", "mask_unbraced_pragmas", "opens_body", "unmasked"]

MARK = b"//\x01"
"""What `#pr` of a hidden pragma becomes: a line comment no user writes.

`# pragma` becomes `//` and two marker bytes: one per byte, nothing moves.
"""

_PRAGMA = re.compile(rb"^[ \t]*(#[ \t]*pr)agma\b", re.MULTILINE)
_BODY_KEYWORDS = (b"else", b"do")


def code_before(
    data: bytes, offset: int, hidden: frozenset[int] | set[int] = frozenset()
) -> bytes | None:
    """The last code line before `offset`, past comments, blanks and `hidden` pragmas.

    None at the start of the file, or when another preprocessor line comes first:
    what it does is unknown.
    """
    end = offset
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        if start == end:  # an empty rest of line: step over its newline
            end -= 1
            continue
        if start > 1 and data[: start - 1].rstrip(b" \t\r").endswith(b"\\"):
            end = start - 1  # a continued line: the line it continues decides
            continue
        line = data[start:end]
        cut = line.find(b"//")
        code = (line if cut < 0 else line[:cut]).rstrip()
        if code.endswith(b"*/"):  # the end of a block comment: drop it
            opened = data.rfind(b"/*", 0, start + len(code) - 2)
            if opened < 0:
                return None
            end = opened
            continue
        stripped = code.strip()
        if stripped.startswith(b"#") and start not in hidden:
            return None
        if stripped and not stripped.startswith(b"#"):
            return stripped
        end = start
    return None


def opens_body(code: bytes) -> bool:
    """True when a statement ending in `code` takes the next one as its body."""
    if code.endswith(b")"):
        return True
    for word in _BODY_KEYWORDS:
        if code.endswith(word):
            before = code[: len(code) - len(word)]
            if not before or not (before[-1:].isalnum() or before[-1:] == b"_"):
                return True
    return False


def mask_unbraced_pragmas(data: bytes) -> bytes:
    """`data` with each pragma that is the unbraced body of a statement a comment.

    A pragma under `for (...)`, `while (...)`, `if (...)`, `else` or `do`, or
    under such a pragma (`#pragma omp parallel` / `#pragma omp single`).
    """
    if b"pragma" not in data:
        return data
    hidden: set[int] = set()
    out = bytearray(data)
    for match in _PRAGMA.finditer(data):
        start = match.start()
        code = code_before(data, start, hidden)
        if code is None or not opens_body(code):
            continue
        at, end = match.span(1)
        hidden.add(start)
        out[at:end] = b"//" + b"\x01" * (end - at - 2)
    return bytes(out)


def unmasked(text: str) -> str | None:
    """The pragma a marked comment hides (`#pragma ...`), None for other text."""
    if not text.startswith(MARK.decode()):
        return None
    return "#pr" + text[2:].lstrip("\x01")
