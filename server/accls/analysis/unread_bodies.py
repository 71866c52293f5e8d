"""Functions whose body the parser did not read whole: their effects are unknown.

A syntax error, or a statement macro's block read as a definition
(frontend/macro_blocks), leaves code no walk records: a summary built from the
rest would say the function writes less than it does.
"""

from __future__ import annotations

from accls.frontend import Function, SourceFile, Span

__all__ = ["unread_part"]


def unread_part(fn: Function, source: SourceFile) -> Span | None:
    """The first parse error inside `fn`'s definition, if any."""
    span = fn.span
    return next(
        (e for e in source.errors if span.start_byte <= e.start_byte < span.end_byte),
        None,
    )
