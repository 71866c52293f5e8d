"""Loops that are the unbraced body of a statement: a pragma there needs braces.

`for (j = 0; j < n; j += t)` followed by `#pragma omp parallel for` and an inner
`for` compiles, but a C parser that does not run the preprocessor (tree-sitter)
reads the directive line as a statement of its own: the outer loop gets an empty
body and the inner loop becomes its sibling. Every later analysis of that text,
the race check of the suggestions among them, then sees the outer loop's
variable read after it (`i = j` in the inner header) and reports a false
`lastprivate`. Wrapping the pragma and its loop in `{ }` keeps the meaning for
the compiler and the structure for the parser.
"""

from __future__ import annotations

__all__ = ["unbraced_body"]

_BODY_KEYWORDS = (b"else", b"do")


def _code_before(data: bytes, offset: int) -> bytes | None:
    """The code before `offset`, without comments and blank lines.

    None when a preprocessor line comes first: what it does to the statement
    (a directive of the user's own, an `#if`) is not ours to move into braces.
    """
    end = offset
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end]
        cut = line.find(b"//")
        code = (line if cut < 0 else line[:cut]).rstrip()
        if code.endswith(b"*/"):  # the end of a block comment: drop it
            opened = data.rfind(b"/*", 0, start + len(code) - 2)
            if opened < 0:
                return None
            end = opened
            continue
        code = code.strip()
        if code.startswith(b"#"):
            return None
        if code:
            return data[:start] + code
        end = start - 1 if start > 0 else 0
    return b""


def _ends_with_keyword(code: bytes, word: bytes) -> bool:
    if not code.endswith(word):
        return False
    before = code[: len(code) - len(word)]
    return not before or not (before[-1:].isalnum() or before[-1:] == b"_")


def unbraced_body(data: bytes, offset: int) -> bool:
    """True when the statement at byte `offset` is the unbraced body of another.

    The code before it ends with `)` (a `for`, `while` or `if` header), `else` or
    `do`, past comments and blank lines (not past a preprocessor line). Braces
    around a single statement never change its meaning, so a false
    positive (a macro call `FOO(x)` without `;`) costs only a pair of braces.
    """
    code = _code_before(data, offset)
    if code is None:
        return False
    if code.endswith(b")"):
        return True
    return any(_ends_with_keyword(code, word) for word in _BODY_KEYWORDS)
