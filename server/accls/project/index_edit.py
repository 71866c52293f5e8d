"""Re-summarising only the functions an edit touched, and their callers in the file.

A keystroke changes one function: parsing the whole file again costs far more
than parsing that function's slice (its callees kept, other bodies blanked). The
index keeps a stamp of each file (a hash of each definition and of the rest)
and falls back on a whole parse when anything outside the functions changed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from accls.analysis import PURE_FUNCTIONS, Definition
from accls.analysis.remote_calls import FileCalls, escaped_names
from accls.frontend import Function, SourceFile
from accls.frontend.incremental import IncrementalTree

__all__ = ["Stamp", "edited_calls", "resummarise", "stamp"]

_MOST = 4  # more functions than this touched: parse the whole file

Parse = Callable[[str], SourceFile]
Define = Callable[[Function, SourceFile], Definition]
Visit = Callable[[Function, SourceFile], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Stamp:
    """What a file's text was, function by function."""

    skeleton: str  # hash of everything outside the function definitions
    functions: dict[str, str]  # name -> hash of its definition


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stamp(text: str) -> tuple[Stamp, IncrementalTree] | None:
    """The stamp of `text` and its tree; None when two definitions share a name."""
    data = text.encode("utf-8", errors="surrogateescape")
    tree = IncrementalTree(data)
    skeleton = bytearray(data)
    functions: dict[str, str] = {}
    for found in reversed(tree.definitions()):
        if found.name in functions:
            return None  # defined twice (#if branches): no quick path
        functions[found.name] = _hash(data[found.range.start : found.range.end])
        del skeleton[found.range.start : found.range.end]
    return Stamp(skeleton=_hash(bytes(skeleton)), functions=functions), tree


def resummarise(
    old: Stamp,
    new: Stamp,
    tree: IncrementalTree,
    definitions: tuple[Definition, ...],
    parse: Parse,
    define: Define,
    visit: Visit | None = None,
) -> tuple[tuple[Definition, ...], frozenset[str]] | None:
    """The file's definitions after the edit, and the callees the new code names.

    `visit` sees each function parsed again (static ones included), in its slice.
    None when the quick path does not apply (the skeleton or the set of
    functions changed, or too many functions are touched).
    """
    if new.skeleton != old.skeleton or set(new.functions) != set(old.functions):
        return None
    defs = tree.definitions()
    data = tree.data
    touched = {n for n, h in new.functions.items() if old.functions[n] != h}
    grown = bool(touched)
    while grown:  # callers in the file change with their callees
        grown = False
        names = b"|".join(re.escape(n.encode()) for n in sorted(touched))
        uses = re.compile(rb"\b(?:" + names + rb")\b")
        for found in defs:
            if found.name not in touched and uses.search(
                data, found.range.start, found.range.end
            ):
                touched.add(found.name)
                grown = True
    if len(touched) > _MOST:
        return None
    fresh: dict[str, Definition | None] = {}
    calls: set[str] = set()
    for found in defs:
        if found.name not in touched:
            continue
        piece = tree.function_slice(found.range.start)
        if piece is None:
            return None
        source = parse(piece.text)
        fn = source.function(found.name)
        if fn is None:
            return None
        calls |= set(fn.calls)
        if visit is not None:
            visit(fn, source)
        if fn.static:
            fresh[found.name] = None
            continue
        fresh[found.name] = define(fn, source)
    old_defs = {d.name: d for d in definitions}
    out: list[Definition] = []
    for found in defs:
        line = data.count(b"\n", 0, found.range.start) + 1
        if found.name in fresh:
            made = fresh[found.name]
            if made is not None:
                out.append(made)
        elif found.name in old_defs:
            out.append(replace(old_defs[found.name], line=line))
    return tuple(out), frozenset(calls - set(new.functions) - PURE_FUNCTIONS)


def edited_calls(
    old: FileCalls | None, text: str, redone: set[str], fresh: list[FileCalls]
) -> FileCalls | None:
    """A file's calls after an edit re-read the functions `redone` (in `fresh`).

    The quick path keeps the set of functions: each redone one replaces its old
    calls and its `static` mark; the names used other than in calls are read
    from the whole new text and kept from the old record (its headers' too).
    """
    if old is None:
        return None
    calls = [c for c in old.calls if c.caller not in redone]
    calls += [c for f in fresh for c in f.calls]
    statics = {n for n in old.statics if n not in redone}
    defined = {n for n in old.defined if n not in redone}
    for found in fresh:
        statics |= found.statics
        defined |= found.defined
    return replace(
        old,
        calls=tuple(calls),
        escaped=escaped_names(text) | old.escaped,
        statics=frozenset(statics),
        defined=frozenset(defined),
    )
