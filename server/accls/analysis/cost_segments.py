"""Segment loops: a loop that runs one data-dependent piece per outer iteration.

`for (box...) { int n = count[box]; for (i = 0; i < n; i++) ... }` walks one box's
atoms; `for (k = row[i]; k < row[i + 1]; k++)` one sparse row. The pieces split the
data between them, so each is small on average (the data over the outer trip count),
and a pragma on the inner loop opens a region, or with a hoisted region waits at a
barrier, for every piece. Such a loop is not worth a pragma of its own: the outer
loop is the level to share out (when it is parallel it gets the pragma instead).

A bound that is a polynomial in an outer loop's variable (`i < n - k`, a pivot or
triangular loop) is not a segment: its pieces are large on average, and hoisting the
region is the remedy there.
"""

from __future__ import annotations

import re

from accls.frontend import Loop, SourceFile, Span

__all__ = ["segment_reason"]

_WORD = re.compile(r"[A-Za-z_]\w*")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text))


def _indexes_with(text: str, names: set[str]) -> bool:
    """True when `text` reads memory at a subscript that uses one of `names`."""
    return any(_words(inner) & names for inner in re.findall(r"\[([^\[\]]*)\]", text))


def _within(span: Span, outer: Span) -> bool:
    return outer.start_byte <= span.start_byte < outer.end_byte


def _enclosing(source: SourceFile, loop: Loop) -> list[Loop]:
    """The loops of its function around `loop`, innermost first."""
    around = [
        outer
        for outer in source.loops()
        if outer.id != loop.id
        and outer.function == loop.function
        and outer.span.start_byte <= loop.span.start_byte
        and loop.span.end_byte <= outer.span.end_byte
    ]
    return sorted(around, key=lambda o: o.span.start_byte, reverse=True)


def _statement_text(source: SourceFile, start: int) -> str:
    """The text from `start` to the end of its statement (the next `;`)."""
    end = source.data.find(b";", start)
    end = end if end >= 0 else len(source.data)
    return source.data[start:end].decode("utf-8", errors="replace")


def segment_reason(source: SourceFile, loop: Loop) -> str:
    """Why `loop` runs one data-dependent segment per outer iteration, or ""."""
    bounds = f"{loop.lower_text} {loop.upper_text}"
    names = _words(bounds)
    around = _enclosing(source, loop)
    varying = {o.var for o in around if o.var}
    for outer in around:
        if outer.var and _indexes_with(bounds, {outer.var}):
            return _reason(outer, f"`{bounds.strip()}`")
    # Scalars set in an outer body, before the loop, from memory at a subscript
    # that changes with the outer iterations (`int n = count[box];`).
    derived: set[str] = set()
    for outer in around:
        writes = sorted(
            (
                r
                for r in outer.refs
                if r.is_write
                and not r.subscripts
                and not r.deref
                and r.name not in varying
                and r.span.start_byte < loop.span.start_byte
                and not any(_within(r.span, o.header) for o in around)
            ),
            key=lambda r: r.span.start_byte,
        )
        for ref in writes:
            text = _statement_text(source, ref.span.start_byte)
            if _indexes_with(text, varying | derived):
                derived.add(ref.name)
                if ref.name in names:
                    return _reason(outer, f"`{ref.name}`")
    return ""


def _reason(outer: Loop, what: str) -> str:
    return (
        f"segment loop: its bound {what} is one data-dependent piece per iteration "
        f"of the loop at line {outer.line}: a parallel region (or barrier) per "
        "piece costs more than it shares out"
    )
