"""Indirect accesses through a constant index table into pointers on one buffer.

`xa1 = base; xa2 = base + 12;` and `idx = indexSet[i]; xa1[idx] += ..; xa2[idx]
+= ..` with `int indexSet[N] = {521, 523, ..}`: the elements each iteration
touches are known, so two iterations meeting one element of `base` is decided by
enumerating the table over the loop's range. The ACC101 findings of enumerated
indices (tables here, index arrays of `races_index`) are built here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accls.analysis.findings import CARRIED_DEPENDENCE, Finding, finding
from accls.analysis.races_index import literal_value, loop_range
from accls.frontend import Function, Loop, Ref, SourceFile

__all__ = ["TableVerdict", "repeated_finding", "table_finding", "table_verdict"]

_NAME = r"[A-Za-z_]\w*"


@dataclass(frozen=True, slots=True)
class TableVerdict:
    """`clash`: two references and the element they share; `apart`: names proved."""

    clash: tuple[Ref, Ref, str] | None
    apart: frozenset[str]


def _table(name: str, source: SourceFile) -> list[int] | None:
    """The literal initializer of a global array never written anywhere."""
    if not any(g.name == name and g.dims for g in source.globals):
        return None
    if any(r.name == name and r.is_write for f in source.functions for r in f.refs):
        return None
    found = re.search(
        rf"\b{re.escape(name)}\s*\[[^\]]*\]\s*=\s*\{{([^{{}}]*)\}}", source.text
    )
    if found is None:
        return None
    items = [x.strip() for x in found.group(1).split(",") if x.strip()]
    if not items or not all(x.lstrip("-").isdigit() for x in items):
        return None
    declared = next(g for g in source.globals if g.name == name).dims[0]
    size = literal_value(declared or "", source)
    pad = max(0, size - len(items)) if size is not None else 0
    return [int(x) for x in items] + [0] * pad  # the rest of a global is zero


def _index_of(text: str, loop: Loop, source: SourceFile) -> list[int] | None:
    """The values of a subscript `T[i]`, or of `v` set once to `T[i]` in the body."""
    body = source.data[loop.body.start_byte : loop.body.end_byte].decode(
        "utf-8", "replace"
    )
    direct = re.fullmatch(rf"({_NAME})\[({_NAME})\]", text)
    if direct is None and re.fullmatch(_NAME, text):
        sets = re.findall(
            rf"(?:\bint\s+)?\b{re.escape(text)}\s*=\s*({_NAME})\s*\[\s*({_NAME})\s*\]\s*;",
            body,
        )
        writes = [r for r in loop.refs if r.name == text and r.is_write]
        if len(sets) != 1 or len(writes) != 1:
            return None
        table, var = sets[0]
    elif direct is not None:
        table, var = direct.group(1), direct.group(2)
    else:
        return None
    values = _table(table, source)
    span = loop_range(loop, source)
    if values is None or span is None or var != loop.var:
        return None
    if span.start < 0 or span.stop > len(values):
        return None
    return [values[k] for k in span]


def _root(name: str, fn: Function, source: SourceFile) -> tuple[str, int] | None:
    """(buffer, offset) for `p = base + 12;` set once, or an array of its own."""
    if any(g.name == name and g.dims for g in source.globals):
        return name, 0
    local = next((v for v in fn.locals if v.name == name), None)
    if local is None:
        return None
    if local.dims:
        return name, 0
    text = source.data[fn.span.start_byte : fn.span.end_byte].decode("utf-8", "replace")
    sets = re.findall(
        rf"\b{re.escape(name)}\s*=\s*({_NAME})\s*(?:\+\s*(\d+))?\s*;", text
    )
    writes = [
        r
        for r in fn.refs
        if r.name == name and r.is_write and not r.deref and not r.subscripts
    ]
    if len(sets) != 1 or len(writes) > 1:
        return None
    base, offset = sets[0]
    return base, int(offset or 0)


def table_verdict(loop: Loop, source: SourceFile) -> TableVerdict | None:
    """Enumerate the elements the loop's table-indexed references touch.

    None when no reference is indexed through a constant table, or when a
    reference of the same buffers cannot be followed.
    """
    fn = source.function(loop.function) if loop.function else None
    if fn is None or loop.var is None:
        return None
    touched: list[tuple[Ref, str, list[int]]] = []
    for ref in loop.refs:
        if len(ref.subscripts) != 1 or ref.member:
            continue
        values = _index_of("".join(ref.subscripts[0].text.split()), loop, source)
        if values is None:
            continue
        root = _root(ref.name, fn, source)
        if root is None:
            return None
        touched.append((ref, root[0], [root[1] + v for v in values]))
    if not touched or not any(ref.is_write for ref, _, _ in touched):
        return None
    roots = {root for _, root, _ in touched}
    names = {ref.name for ref, _, _ in touched}
    for ref in loop.refs:
        if ref.subscripts and ref.name not in names:
            other = _root(ref.name, fn, source)
            if other is not None and other[0] in roots:
                return None  # the buffer is also reached some other way
    for k, (a, root_a, cells_a) in enumerate(touched):
        for b, root_b, cells_b in touched[k:]:
            if root_a != root_b or not (a.is_write or b.is_write):
                continue
            first: dict[int, int] = {}
            for it, cell in enumerate(cells_a):
                first.setdefault(cell, it)
            for it, cell in enumerate(cells_b):
                hit = first.get(cell)
                if hit is not None and hit != it:
                    return TableVerdict((a, b, f"{root_a}[{cell}]"), frozenset())
    return TableVerdict(None, frozenset(names))


def table_finding(clash: tuple[Ref, Ref, str], where: dict[str, object]) -> Finding:
    """ACC101 for two table-indexed references that meet one element."""
    first, second, cell = clash
    kind = "output" if first.is_write and second.is_write else "flow"
    dep = (
        f"{kind} dependence on `{cell.split('[')[0]}`: `{first.render()}` (line "
        f"{first.span.line}) and `{second.render()}` (line {second.span.line}) reach "
        f"`{cell}` in two iterations: the constant index table says so"
    )
    return finding(
        CARRIED_DEPENDENCE,
        first.span,
        dep=dep,
        source_line=first.span.line,
        sink_line=second.span.line,
        **where,
    )


def repeated_finding(
    ref: Ref, text: str, repeated: tuple[str, int] | str, where: dict[str, object]
) -> Finding:
    """ACC101 for `a[idx[i]]` when `idx` repeats a value by construction.

    `repeated` is the store that repeats (its text and line), or the reason two
    iterations meet one element (`modulo_collision`).
    """
    if isinstance(repeated, str):
        dep = f"output dependence on `{ref.name}`: {repeated}"
    else:
        store, line = repeated
        dep = (
            f"output dependence on `{ref.name}`: `{text}` (line {ref.span.line}) "
            f"is updated at one element by two iterations, since `{store}` (line "
            f"{line}) repeats values"
        )
    return finding(
        CARRIED_DEPENDENCE,
        ref.span,
        dep=dep,
        source_line=ref.span.line,
        sink_line=ref.span.line,
        **where,
    )
