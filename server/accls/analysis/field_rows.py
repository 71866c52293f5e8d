"""The rows of a pointer table held in a struct field: `ll->nbrBoxes[k]`.

`int **nbrBoxes` of `LinkCell` is a block of row pointers; each row is a block
of its own when every store to a row (`ll->nbrBoxes[k] = comdMalloc(..)`) is a
fresh allocation. The rows' set is the slot `nbrBoxes[]` of the struct, filled
like a field's by the stores to `x->f[k]`. It holds only when nothing else can
write a row: the table's value is never read bare (copied, passed to a call,
offset) except to be freed, never dereferenced as `*x->f`, no row's address is
taken, and the table itself is only ever a fresh allocation no copy shares.
"""

from __future__ import annotations

from collections import Counter

from accls.analysis.field_paths import FieldRef, resolve_field
from accls.frontend import Effect, Function, TypeTable, Var, library_function

__all__ = ["ROWS", "bare_tables", "row_field", "rows_hold"]

ROWS = "[]"  # the suffix of the slot of a table field's rows: `nbrBoxes[]`


def _table(found: FieldRef | None) -> bool:
    return found is not None and found.levels.startswith("**")


def row_field(
    path: str, fn: Function | None, globals_: tuple[Var, ...], types: TypeTable
) -> FieldRef | None:
    """The table field `x->f` whose row `path` (`x->f[k]`) is; None otherwise."""
    text = path.strip()
    if not text.endswith("]"):
        return None
    depth = 0
    for pos in range(len(text) - 1, -1, -1):
        depth += {"]": 1, "[": -1}.get(text[pos], 0)
        if depth == 0:
            found = resolve_field(text[:pos], fn, globals_, types)
            return found if _table(found) else None
    return None


def bare_tables(
    functions: tuple[Function, ...], globals_: tuple[Var, ...], types: TypeTable
) -> list[tuple[str, str, int]]:
    """(struct, field, line) of each table field some function uses bare."""
    out: list[tuple[str, str, int]] = []
    for fn in functions:
        freed: Counter[str] = Counter()
        for call in fn.call_sites:
            known = library_function(call.name)
            if known is not None and known.effect is Effect.FREE:
                freed.update("".join(a.split()) for a in call.args)
        seen: dict[tuple[str, str, str], list[int]] = {}
        for ref in fn.refs:
            if ref.subscripts or not ref.member:
                continue
            if ref.is_write and not ref.deref and not ref.escapes:
                continue  # the store of the table itself: its own fact
            found = resolve_field(ref.name, fn, globals_, types)
            if found is None or not _table(found):
                continue
            text = "".join(ref.name.split())
            seen.setdefault((text, found.key, found.field), []).append(ref.span.line)
        for (text, key, name), lines in seen.items():
            if len(lines) > freed[text]:
                out.append((key, name, lines[0]))
    return out


def rows_hold(
    slot: tuple[str, str],
    table: frozenset[str] | set[str] | None,
    copied: set[tuple[str, str]],
) -> bool:
    """Whether a rows slot's set stands: its table is fresh blocks no copy shares."""
    base = (slot[0], slot[1].removesuffix(ROWS))
    if table is None or not table or base in copied:
        return False
    return all(name.startswith("alloc ") for name in table)
