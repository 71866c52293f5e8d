"""A local table of pointers set once by its initializer: `double *t[2] = {a, b + n};`.

`t[1][i]` is then `b[n + i]` and `t[0][i]` is `a[i]`: the nest is rewritten so
that each access through an entry chosen by a constant is the element it
reaches, and the dependence test compares them like any other accesses (two
entries into one buffer, `{buf, buf + n}`, are apart exactly when their
ranges are). Only a table no statement stores into, whose address is never
taken and that is never passed on, qualifies; each entry must be an address
the front end reads (`a`, `a + e`, `&a[e]`, a row `a[e]`), of an array
declared with its dimensions or of a pointer no statement re-points after the
table is built, and the nest must reach the table only as `t[c][k]`.
"""

from __future__ import annotations

import re
from dataclasses import replace

from accls.analysis.nest_views import integer_macros
from accls.analysis.offset_symbols import moved_unseen
from accls.analysis.pointer_locals import (
    all_loops,
    declared_array,
    parsed_address,
    rebuilt_nest,
)
from accls.frontend import Function, Loop, Poly, Ref, SourceFile, Subscript, Var
from accls.frontend.exprs import expression_poly

__all__ = ["promote_table_entries"]

_NAME = re.compile(r"[A-Za-z_]\w*")


def promote_table_entries(nest: Loop, source: SourceFile) -> Loop:
    """`nest` with each `t[c][k]` of a table set once as the element it reaches."""
    fn = source.function(nest.function)
    if source.language == "fortran" or fn is None:
        return nest
    inner = {v.name for lp in all_loops(nest) for v in lp.locals}
    constants = integer_macros(source.macros)
    promoted: dict[int, Ref] = {}
    for var in fn.locals:
        if var.name in inner or fn.declarations(var.name) != 1:
            continue
        entries = _entries(var, nest, fn, source, set(constants))
        if entries is None:
            continue
        rewritten = _rewritten(var.name, nest, entries, constants)
        if rewritten is None:
            continue
        promoted.update(rewritten)
    return rebuilt_nest(nest, promoted, set()) if promoted else nest


def _entries(
    var: Var, nest: Loop, fn: Function, source: SourceFile, macros: set[str]
) -> list[tuple[str, Subscript, bool, Subscript]] | None:
    """Where each entry of the table points, when the table qualifies."""
    if var.levels != "[*" or var.pointers != 1 or len(var.dims) != 1:
        return None
    if var.span is None or var.address_taken or var.leaves or var.static:
        return None
    declared = var.span.start_byte
    if declared >= nest.span.start_byte:
        return None
    if any(
        r.name == var.name
        and r.is_write
        and len(r.subscripts) < 2
        and (r.subscripts or r.span.start_byte != declared)
        for r in fn.refs
    ):
        return None  # an entry (or the whole table) is stored again
    if any(
        r.name == var.name and not r.subscripts and r.span.start_byte != declared
        for r in fn.refs
    ):
        return None  # the table's address is copied (`pp = t`): stores may follow
    text = source.data[declared : var.span.end_byte + 400].decode("utf-8", "replace")
    init = re.match(
        rf"[^;{{]*?\b{re.escape(var.name)}\s*\[[^\]]*\]\s*=\s*\{{([^{{}}]*)\}}", text
    )
    if init is None:
        return None
    found = []
    for item in _items(init.group(1)):
        address = parsed_address(" ".join(item.split()))
        if address is None:
            return None
        base, start, row, column = address
        if not _steady(base, row, declared, nest, fn, source):
            return None
        names = set(_NAME.findall(f"{start} {column}")) - macros
        if any(_changed(n, declared, fn, source) for n in names):
            return None  # an offset's variable changes after the table is built
        found.append(
            (
                base,
                Subscript(text=start, poly=expression_poly(start)),
                row,
                Subscript(text=column, poly=expression_poly(column)),
            )
        )
    return found


def _items(text: str) -> list[str]:
    """The initializer's entries, split at the commas outside brackets."""
    items, depth, at = [], 0, 0
    for k, ch in enumerate(text):
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            items.append(text[at:k])
            at = k + 1
    last = text[at:].strip()
    return [i.strip() for i in items] + ([last] if last else [])


def _changed(name: str, after: int, fn: Function, source: SourceFile) -> bool:
    """Whether `name` may hold another value than when the table was built."""
    if moved_unseen(name, after, fn, source):
        return True
    return any(
        r.name == name and r.is_write and not r.subscripts and r.span.start_byte > after
        for r in fn.refs
    )


def _steady(
    base: str, row: bool, after: int, nest: Loop, fn: Function, source: SourceFile
) -> bool:
    """An array with its dimensions, or a pointer not re-pointed after `after`."""
    array = declared_array(base, nest, source)
    if array is None or array.address_taken:
        return False
    if not array.pointers:
        return len(array.dims) == 1 + row
    if row or array.dims or array.levels != "*" or array.scope == "global":
        return False
    return not any(
        r.name == base
        and r.is_write
        and not r.subscripts
        and not r.deref
        and r.span.start_byte > after
        for r in fn.refs
    )


def _rewritten(
    name: str,
    nest: Loop,
    entries: list[tuple[str, Subscript, bool, Subscript]],
    constants: dict[str, int],
) -> dict[int, Ref] | None:
    """Each `name[c][k]` of the nest as the element it reaches; None if any is not."""
    out: dict[int, Ref] = {}
    for ref in nest.refs:
        if ref.name != name:
            continue
        if len(ref.subscripts) != 2 or ref.deref or ref.escapes or ref.into:
            return None  # `t[c]` alone, `*t[c]`, `&t[c][k]`: not one element
        pick = ref.subscripts[0].poly
        if pick is not None and pick.names():
            pick = pick.substitute({k: Poly.const(v) for k, v in constants.items()})
        if pick is None or not pick.is_constant:
            return None
        if not 0 <= pick.constant < len(entries):
            return None
        base, start, row, column = entries[pick.constant]
        out[ref.span.start_byte] = replace(
            ref,
            name=base,
            subscripts=_subscripts(start, row, column, ref.subscripts[1]),
        )
    return out or None


def _sum(one: Subscript, two: Subscript) -> Subscript:
    poly = (
        one.poly + two.poly if one.poly is not None and two.poly is not None else None
    )
    return Subscript(f"{one.text} + {two.text}", poly, one.indirect or two.indirect)


def _subscripts(
    start: Subscript, row: bool, column: Subscript, inner: Subscript
) -> tuple[Subscript, ...]:
    """The subscripts of the element `inner` places past the entry's address."""
    if row:
        return (start, _sum(column, inner) if column.text != "0" else inner)
    return (_sum(start, inner),)
