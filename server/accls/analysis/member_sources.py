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
from functools import lru_cache

from accls.analysis.access_paths import Target
from accls.frontend import SourceFile

__all__ = ["member_source"]

_PATH = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)*")
_STEP = re.compile(r"\s*(\.|->)\s*")
# `s.p = value;`, `a->b.c = value;` (not `==`, not a compound assignment)
_STORE = re.compile(
    r"(?<![\w.>])([A-Za-z_]\w*(?:\s*(?:\.|->)\s*[A-Za-z_]\w*)+)\s*=(?!=)\s*([^;]*);"
)


def _normal(path: str) -> str:
    return _STEP.sub(r"\1", path.strip())


@lru_cache(maxsize=8)
def _stores(data: bytes) -> dict[str, frozenset[str]]:
    """Every member path the file stores into (`s.p = ...`), with the stored names."""
    found: dict[str, set[str]] = {}
    for match in _STORE.finditer(data.decode("utf-8", "replace")):
        names = {_normal(m.group(0)) for m in _PATH.finditer(match.group(2))}
        found.setdefault(_normal(match.group(1)), set()).update(names)
    return {k: frozenset(v) for k, v in found.items()}


def _stored(path: str, source: SourceFile) -> frozenset[str]:
    """The names and member paths of every value the file stores into `path`."""
    return _stores(source.data).get(path, frozenset())


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
