"""Pointer members the program sets from the other array: `s.p = s.arr + 1`.

A pointer read from memory (`s.p[i]`) may point anywhere, which assume-no-alias
lets the user deny; but where the file itself stores into that member a value
made from the other array (`s.p = s.arr + 1`, or both members from one buffer),
the two are based on one another and no promise sets them apart: the loop
`s.p[i] = s.arr[i] * 0.5` reads what an earlier iteration wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from accls.analysis.access_paths import Target
from accls.frontend import SourceFile

__all__ = ["member_source"]

_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")
_STEP = re.compile(r"\s*(\.|->)\s*")


def _normal(path: str) -> str:
    return _STEP.sub(r"\1", path.strip())


def _stored(path: str, source: SourceFile) -> set[str]:
    """The names and member paths of every value the file stores into `path`."""
    parts = re.split(r"(\.|->)", path)
    pattern = r"\s*".join(re.escape(p) for p in parts if p)
    store = re.compile(r"(?<![\w.>])" + pattern + r"\s*=(?!=)\s*([^;]*);")
    found: set[str] = set()
    for match in store.finditer(source.data.decode("utf-8", "replace")):
        found.update(_normal(m.group(0)) for m in _PATH.finditer(match.group(1)))
    return found


def _name(target: Target) -> str:
    if target.path:
        return _normal(target.path)
    return target.root.name if target.root is not None else ""


def member_source(
    ones: Iterable[Target], twos: Iterable[Target], source: SourceFile
) -> str:
    """The array both reach when the file sets a pointer member from the other."""
    seconds = list(twos)
    for a in ones:
        for b in seconds:
            if "loaded" not in (a.kind, b.kind):
                continue
            first = _stored(_name(a), source) if a.kind == "loaded" else set()
            second = _stored(_name(b), source) if b.kind == "loaded" else set()
            if _name(b) in first:
                return _name(b)
            if _name(a) in second:
                return _name(a)
            common = first & second
            if common:
                return min(common)
    return ""
