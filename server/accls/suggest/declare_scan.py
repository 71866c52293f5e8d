"""The file's own `declare` directives, read from its text.

Pragma lines (continued with a backslash or not) of one dialect, and for
OpenMP the `declare target` forms: lists (`declare target(list)`, `to`,
`enter`, `link`) and blocks (`begin declare target`, or a `declare target`
with no list, up to `end declare target`; one never ended runs to the end of
the file). The data holds and the device functions both read them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from accls.analysis.data_clauses import split_top

__all__ = ["OmpDeclares", "PragmaLine", "omp_declares", "pragma_lines"]

_PRAGMA = re.compile(
    rb"^[ \t]*#[ \t]*pragma[ \t]+(acc|omp)\b((?:[^\n]*\\\r?\n)*[^\n]*)", re.M
)
_JOIN = re.compile(r"\\\r?\n")
_OMP = re.compile(r"^\s*(begin\s+|end\s+)?declare\s+target\b(.*)$", re.S)
# `to(..)`, `enter(..)`, `link(..)`, or the bare list of `declare target(..)`;
# `device_type(..)` and `indirect(..)` name nothing.
_LIST = re.compile(r"(\b[A-Za-z_]\w*)?\s*\(([^()]*)\)")
_LISTS = frozenset({"", "to", "enter", "link"})
_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


@dataclass(frozen=True, slots=True)
class PragmaLine:
    """One pragma of the dialect: its bytes, the text after the sentinel."""

    start: int
    end: int
    line: int
    text: str  # continuation lines joined
    raw: bytes


@dataclass(frozen=True, slots=True)
class OmpDeclares:
    """`declare target` lists and blocks of a file."""

    # (clause word, "" for the bare list; name; the pragma)
    listed: tuple[tuple[str, str, PragmaLine], ...]
    # (first byte after the opening pragma, byte of the end or EOF, the opener)
    blocks: tuple[tuple[int, int, PragmaLine], ...]


def pragma_lines(data: bytes, sentinel: str) -> Iterator[PragmaLine]:
    """The pragmas of `sentinel` ("acc" or "omp") in `data`, in order."""
    for match in _PRAGMA.finditer(data):
        if match.group(1).decode() != sentinel:
            continue
        yield PragmaLine(
            start=match.start(),
            end=match.end(),
            line=data.count(b"\n", 0, match.start()) + 1,
            text=_JOIN.sub(" ", match.group(2).decode("utf-8", "replace")),
            raw=match.group(0),
        )


def omp_declares(data: bytes) -> OmpDeclares:
    """The `declare target` lists and blocks of `data`."""
    listed: list[tuple[str, str, PragmaLine]] = []
    blocks: list[tuple[int, int, PragmaLine]] = []
    opened: list[PragmaLine] = []
    for pragma in pragma_lines(data, "omp"):
        omp = _OMP.match(pragma.text)
        if omp is None:
            continue
        if (omp.group(1) or "").startswith("end"):
            if opened:
                opener = opened.pop()
                blocks.append((opener.end, pragma.start, opener))
            continue
        lists = [
            found
            for found in _LIST.finditer(omp.group(2))
            if (found.group(1) or "") in _LISTS
        ]
        listed += [
            (found.group(1) or "", m.group(1), pragma)
            for found in lists
            for item in split_top(found.group(2))
            if (m := _NAME.match(item))
        ]
        if not lists:
            opened.append(pragma)
    blocks += [(opener.end, len(data), opener) for opener in opened]
    return OmpDeclares(tuple(listed), tuple(blocks))
