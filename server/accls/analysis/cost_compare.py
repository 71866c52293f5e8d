"""Comparisons of stored data: a sum whose terms read arrays only at its index.

`for (i...) err += (out[i] - ref[i]) * (out[i] - ref[i]);` compares two results
the program computed earlier (a norm of their difference). Its arithmetic per
element is a few operations on values just loaded, so it is bound by memory at any
width, however many units the operations count: the loop streams the arrays once.
A check that computes its reference from the index (`fabs(b[i] - (i * n + 0.5))`)
or calls a function does work per element, and is not such a comparison.
"""

from __future__ import annotations

import re

from accls.frontend import Loop, SourceFile

__all__ = ["compares_stored"]

_WORD = re.compile(r"[A-Za-z_]\w*")
_ELEMENT = re.compile(rb"[A-Za-z_]\w*(?:\s*\[[^\]]*\])+")
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)


def compares_stored(source: SourceFile, loop: Loop) -> bool:
    """True when `loop`'s nest uses its variables only to index arrays, calling nothing.

    Every loop of the nest must have a variable, and each variable may appear in
    the body only inside an element reference (`a[i]`), never as a value.
    """
    nest = list(loop.walk())
    names = {inner.var for inner in nest}
    if None in names or any(inner.calls for inner in nest):
        return False
    start = loop.span.start_byte
    text = bytearray(source.data[start : loop.span.end_byte])

    def blank(first: int, last: int) -> None:
        for k in range(max(first - start, 0), min(last - start, len(text))):
            if text[k] != ord("\n"):
                text[k] = ord(" ")

    for inner in nest:
        blank(inner.header.start_byte, inner.header.end_byte)
    for ref in loop.refs:
        # A reference spelled where it stands: one a macro expands (`ABS(b[i] - i)`)
        # spans the whole invocation, which may hold the variable as a value.
        spelled = source.data[ref.span.start_byte : ref.span.end_byte]
        if ref.subscripts and _ELEMENT.fullmatch(spelled):
            blank(ref.span.start_byte, ref.span.end_byte)
    for match in _COMMENT.finditer(bytes(text)):
        blank(start + match.start(), start + match.end())
    words = set(_WORD.findall(text.decode("latin-1")))
    return not words & {n for n in names if n is not None}
