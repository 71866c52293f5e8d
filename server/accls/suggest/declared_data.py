"""The names the user's `declare` directives keep on the device, and where.

OpenACC `declare` (any data clause, any spelling) holds a global for the whole
program and a local (or a parameter's data) for its function. OpenMP `declare
target` holds what its list names (`declare target(list)`, `to`, `enter`,
`link`) and every global declared between `begin declare target`, or a
`declare target` with no list, and `end declare target`. `link` holds nothing
itself: the data is mapped only where a data clause names it, so the loop's
own clauses move it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis import FileAnalysis
from accls.analysis.data_clauses import split_top
from accls.frontend import Function, parse_directive

__all__ = ["Declared", "declared_in"]

_PRAGMA = re.compile(
    rb"^[ \t]*#[ \t]*pragma[ \t]+(acc|omp)\b((?:[^\n]*\\\r?\n)*[^\n]*)", re.M
)
_JOIN = re.compile(r"\\\r?\n")
_OMP = re.compile(r"^\s*(begin\s+|end\s+)?declare\s+target\b(.*)$", re.S)
# `to(..)`, `enter(..)`, `link(..)`, or the bare list of `declare target(..)`;
# `device_type(..)` and `indirect(..)` name no data.
_LIST = re.compile(r"(\b[A-Za-z_]\w*)?\s*\(([^()]*)\)")
_LISTS = frozenset({"", "to", "enter", "link"})
_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


@dataclass(frozen=True, slots=True)
class Declared:
    """A name a `declare` holds on the device: its line, its function (None: file)."""

    name: str
    line: int
    function: str | None


def declared_in(
    analysis: FileAnalysis, sentinel: str, fn: Function
) -> dict[str, Declared]:
    """The names `fn` sees held by a `declare`: its own, and the file's globals.

    A file-scope declare of a name `fn` declares again (a local, a parameter)
    is not that name's.
    """
    found: dict[str, Declared] = {}
    for held in _declared(analysis, sentinel):
        mine = held.function == fn.name
        if mine or (held.function is None and fn.lookup(held.name) is None):
            found.setdefault(held.name, held)
    return found


def _declared(analysis: FileAnalysis, sentinel: str) -> tuple[Declared, ...]:
    key = f"declare holds {sentinel}"
    kept = analysis.memo.get(key)
    if isinstance(kept, tuple):
        return kept
    source = analysis.source
    data = source.data
    out: list[Declared] = []
    opened: list[tuple[int, int]] = []  # the open blocks: their offset and line
    for match in _PRAGMA.finditer(data):
        if match.group(1).decode() != sentinel:
            continue
        text = _JOIN.sub(" ", match.group(2).decode("utf-8", "replace"))
        line = data.count(b"\n", 0, match.start()) + 1
        owner = _function_at(analysis, match.start())
        if sentinel == "acc":
            out += [Declared(n, line, owner) for n in _acc_names(match.group(0))]
            continue
        omp = _OMP.match(text)
        if omp is None:
            continue
        if (omp.group(1) or "").startswith("end"):
            if opened:
                at, row = opened.pop()
                out += [
                    Declared(g.name, row, None)
                    for g in source.globals
                    if g.span is not None and at < g.span.start_byte < match.start()
                ]
            continue
        lists = [
            (word, m.group(1))
            for found in _LIST.finditer(omp.group(2))
            if (word := found.group(1) or "") in _LISTS
            for item in split_top(found.group(2))
            if (m := _NAME.match(item))
        ]
        if lists:
            out += [Declared(n, line, owner) for word, n in lists if word != "link"]
        else:
            opened.append((match.end(), line))
    for at, row in opened:  # a block never ended holds to the end of the file
        out += [
            Declared(g.name, row, None)
            for g in source.globals
            if g.span is not None and at < g.span.start_byte
        ]
    result = tuple(out)
    analysis.memo[key] = result
    return result


def _acc_names(pragma: bytes) -> list[str]:
    directive = parse_directive(pragma.decode("utf-8", "replace"))
    if directive is None or directive.name != "declare":
        return []
    return [
        m.group(1)
        for clause in directive.clauses
        if clause.name != "link"
        for item in split_top(clause.args or "")
        if (m := _NAME.match(item))
    ]


def _function_at(analysis: FileAnalysis, offset: int) -> str | None:
    for fn in analysis.source.functions:
        if fn.span.start_byte <= offset < fn.span.end_byte:
            return fn.name
    return None
