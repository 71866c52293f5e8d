"""The value a brace initializer gives a pointer field: `struct v s = {buf, buf + n};`.

`s.b` of `struct { double *a, *b; } s = {buf, buf + n};` is `buf + n` until a
statement assigns it: the item at the field's place in the declaration order,
or the item a designator names (`{.b = buf + n}`). A field the list leaves out
is null, a value no chain of carved pointers starts from, so none is given.
"""

from __future__ import annotations

import re

from accls.frontend import Function, SourceFile, Var

__all__ = ["field_initializer", "initialized_whole"]

_FIELD = re.compile(r"([A-Za-z_]\w*)\.([A-Za-z_]\w*)")
_DESIGNATED = re.compile(r"\.\s*([A-Za-z_]\w*)\s*=\s*(.+)", re.DOTALL)


def _declared_at(field: Var) -> int:
    """Where a field is declared: the order a positional initializer follows."""
    return field.span.start_byte if field.span is not None else 0


def _items(text: str) -> list[str]:
    """The list's items, split at the commas outside brackets."""
    items, depth, at = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            items.append(text[at:k].strip())
            at = k + 1
    last = text[at:].strip()
    return items + ([last] if last else [])


def _list(name: str, fn: Function, source: SourceFile) -> tuple[str, int] | None:
    """The text inside the braces of `name`'s declaration, and where it ends."""
    base = fn.lookup(name)
    if base is None or base.span is None or base.dims or base.pointers:
        return None
    start = base.span.start_byte
    text = source.data[start : start + 800].decode("utf-8", "replace")
    found = re.match(rf"{re.escape(name)}\s*=\s*\{{([^{{}}]*)\}}", text)
    if found is None:
        return None
    return found.group(1), start + len(found.group(0).encode())


def initialized_whole(name: str, at: int, fn: Function, source: SourceFile) -> bool:
    """Whether the write of the struct `name` at byte `at` is its brace initializer."""
    base = fn.lookup(name)
    if base is None or base.span is None or base.span.start_byte != at:
        return False
    return _list(name, fn, source) is not None


def field_initializer(
    name: str, fn: Function, source: SourceFile
) -> tuple[str, int] | None:
    """The item `s.f` gets from `s`'s brace initializer, and the byte after it."""
    parts = _FIELD.fullmatch(name)
    if parts is None:
        return None
    found = _list(parts.group(1), fn, source)
    base = fn.lookup(parts.group(1))
    fields = source.types.fields_of(base.type) if base is not None else None
    if found is None or not fields:
        return None
    items = _items(found[0])
    named = [_DESIGNATED.fullmatch(item) for item in items]
    if all(m is not None for m in named) and named:
        values = {m.group(1): m.group(2).strip() for m in named if m is not None}
        value = values.get(parts.group(2))
    elif any(m is not None for m in named):
        return None  # designators mixed with places: not read here
    else:
        order = sorted(fields, key=lambda f: _declared_at(fields[f]))
        at = order.index(parts.group(2)) if parts.group(2) in order else len(items)
        value = items[at] if at < len(items) else None
    return (value, found[1]) if value else None
