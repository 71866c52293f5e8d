"""The two arms of one `if`: code of one execution that never both run.

A task made in the `then` arm and an access of its creator in the `else` arm
(or two tasks made in the two arms) cannot both happen in one execution of the
`if`. They may in two executions, when a loop of the region holds the `if`: the
arms part them only outside every loop of the region. (A function making
orphaned tasks is modelled one call at a time, as its other pairs are.)
"""

from __future__ import annotations

from accls.frontend import Branch, SourceFile, Span

__all__ = ["if_else_arms", "opposite_arms"]


def if_else_arms(
    branches: list[Branch], source: SourceFile
) -> tuple[tuple[Span, Span], ...]:
    """(then, else) spans of each `if ... else` among `branches`."""
    elses = [b for b in branches if b.kind == "else"]
    out: list[tuple[Span, Span]] = []
    for then in (b for b in branches if b.kind == "if"):
        other = next(
            (
                e
                for e in elses
                if e.condition == then.condition
                and then.span.end_byte <= e.span.start_byte
                and source.data[then.span.end_byte : e.span.start_byte].strip()
                in (b"", b"else")
            ),
            None,
        )
        if other is not None:
            out.append((then.span, other.span))
    return tuple(out)


def _inside(span: Span, pos: int) -> bool:
    return span.start_byte <= pos < span.end_byte


def opposite_arms(
    arms: tuple[tuple[Span, Span], ...],
    loops: tuple[Span, ...],
    p: int,
    q: int,
) -> Span | None:
    """The `else` arm when `p` and `q` lie in the two arms of one `if` no loop holds."""
    for then, other in arms:
        apart = (_inside(then, p) and _inside(other, q)) or (
            _inside(then, q) and _inside(other, p)
        )
        if apart and not any(_inside(lp, then.start_byte) for lp in loops):
            return other
    return None
