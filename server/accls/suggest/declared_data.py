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
from accls.frontend import Function, SourceFile, parse_directive
from accls.suggest.declare_scan import omp_declares, pragma_lines

__all__ = ["Declared", "declared_in"]

_NAME = re.compile(r"\s*([A-Za-z_]\w*)")


@dataclass(frozen=True, slots=True)
class Declared:
    """A name a `declare` holds on the device: its line, its function (None: file)."""

    name: str
    line: int
    function: str | None
    place: str = ""  # `header.h:7` for a header's declare; "" for the file's


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
    out: list[Declared] = []
    if sentinel == "acc":
        for pragma in pragma_lines(source.data, sentinel):
            owner = _function_at(analysis, pragma.start)
            out += [Declared(n, pragma.line, owner) for n in _acc_names(pragma.raw)]
    else:
        declares = omp_declares(source.data)
        out += [
            Declared(name, pragma.line, _function_at(analysis, pragma.start))
            for word, name, pragma in declares.listed
            if word != "link"
        ]
        out += [
            Declared(g.name, opener.line, None)
            for at, until, opener in declares.blocks
            for g in source.globals
            if g.span is not None and at < g.span.start_byte < until
        ]
    if source.headers is not None:
        out += _in_headers(source.headers, sentinel)
    result = tuple(out)
    analysis.memo[key] = result
    return result


def _in_headers(headers: SourceFile, sentinel: str) -> list[Declared]:
    """The globals the project headers' declares hold, for every includer."""

    def place(line: int) -> str:
        if 0 < line <= len(headers.places):
            name, row = headers.places[line - 1]
            return f"{name}:{row}"
        return "a header"

    out: list[Declared] = []
    if sentinel == "acc":
        for pragma in pragma_lines(headers.data, sentinel):
            where = place(pragma.line)
            out += [Declared(n, 0, None, where) for n in _acc_names(pragma.raw)]
        return out
    declares = omp_declares(headers.data)
    out += [
        Declared(name, 0, None, place(pragma.line))
        for word, name, pragma in declares.listed
        if word != "link"
    ]
    out += [
        Declared(g.name, 0, None, place(opener.line))
        for at, until, opener in declares.blocks
        for g in headers.globals
        if g.span is not None and at < g.span.start_byte < until
    ]
    return out


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
