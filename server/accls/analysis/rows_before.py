"""The file as one nest sees it: tables handed on only after it keep their rows.

The front end refutes a table's fresh rows for its whole function when a call
may re-point a slot (`Var.fresh_rows`), and notes from which byte that call's
effect may be read (`Var.rows_kept_until`). A nest that ends before it reads
the rows as they were stored, each an allocation of its own: for that nest the
table is one of fresh rows again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from accls.frontend import Loop, SourceFile

__all__ = ["nest_sources"]


def _seen(
    source: SourceFile, nest: Loop, made: dict[tuple[str, tuple[str, ...]], SourceFile]
) -> SourceFile:
    """`source` with `nest`'s function seeing the rows it ends before the refuting of.

    `made` holds the files already made, by function and tables kept.
    """
    fn = source.function(nest.function)
    if fn is None or not any(v.rows_kept_until >= 0 for v in fn.locals):
        return source
    if not fn.span.start_byte <= nest.span.start_byte < fn.span.end_byte:
        return source  # another overload of the name: its own places
    end = nest.span.end_byte
    kept = tuple(v.name for v in fn.locals if v.rows_kept_until >= end)
    if not kept:
        return source
    key = (fn.name, kept)
    if key not in made:
        locals_ = tuple(
            replace(v, fresh_rows=True) if v.rows_kept_until >= end else v
            for v in fn.locals
        )
        seen = replace(fn, locals=locals_)
        functions = tuple(seen if f is fn else f for f in source.functions)
        by_name = {**source._by_name, fn.name: seen}
        made[key] = replace(source, functions=functions, _by_name=by_name)
    return made[key]


def nest_sources(source: SourceFile) -> Iterator[tuple[Loop, SourceFile]]:
    """Each nest of the file, with the file as it sees it."""
    made: dict[tuple[str, tuple[str, ...]], SourceFile] = {}
    for nest in source.nests:
        yield nest, _seen(source, nest, made)
