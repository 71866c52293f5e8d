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


# A fresh block (`malloc(n * sizeof(double))`) is based on nothing its
# arguments name; `realloc(p, n)` may return `p`, so it is not one of them.
_FRESH = re.compile(r"\b(?:malloc|calloc|aligned_alloc)\s*\(")
# C keywords (`double` of a cast or a `sizeof`) name no object.
_KEYWORDS = frozenset(
    "char short int long float double signed unsigned void const volatile "
    "struct union enum sizeof _Alignof restrict _Bool".split()
)


def _without_fresh_calls(value: str) -> str:
    """`value` with each fresh allocation call, arguments included, cut out."""
    out, at = [], 0
    for match in _FRESH.finditer(value):
        if match.start() < at:
            continue  # inside a call already cut
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(value)):
            depth += {"(": 1, ")": -1}.get(value[end], 0)
            if depth == 0:
                break
        if depth != 0:
            return value  # unbalanced: keep every name
        out.append(value[at : match.start()])
        at = end + 1
    return "".join(out) + value[at:]


def _normal(path: str) -> str:
    return _STEP.sub(r"\1", path.strip())


@lru_cache(maxsize=8)
def _stores(data: bytes) -> dict[str, frozenset[str]]:
    """Every member path the file stores into (`s.p = ...`), with the stored names."""
    found: dict[str, set[str]] = {}
    for match in _STORE.finditer(data.decode("utf-8", "replace")):
        value = _without_fresh_calls(match.group(2))
        names = {_normal(m.group(0)) for m in _PATH.finditer(value)} - _KEYWORDS
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
