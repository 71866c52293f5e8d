"""Insert suggested pragmas into C text, indented like the loops they precede."""

from __future__ import annotations

from collections.abc import Sequence

from accls.suggest.hoist import HoistedRegion, hoisted_edits
from accls.suggest.kernel_async import AsyncRun, async_edits
from accls.suggest.lifetime_edits import lifetime_edits
from accls.suggest.lifetimes import DeviceLifetime
from accls.suggest.routines import end_pragma, routine_functions
from accls.suggest.suggestion import Suggestion
from accls.suggest.unbraced import unbraced_body

__all__ = ["annotate_text", "insertions"]


def _line_bounds(data: bytes, offset: int) -> tuple[int, bytes]:
    """Start of the line holding `offset`, and that line's indentation."""
    start = data.rfind(b"\n", 0, offset) + 1
    indent = data[start:offset]
    stripped = len(indent) - len(indent.lstrip(b" \t"))
    return start, indent[:stripped]


def insertions(
    text: str,
    suggestions: tuple[Suggestion, ...],
    hoisted: Sequence[HoistedRegion] = (),
    lifetimes: Sequence[DeviceLifetime] = (),
    waits: Sequence[AsyncRun] = (),
) -> list[tuple[int, str]]:
    """(byte offset, text) pairs that add each pragma above its loop or statement.

    `hoisted`: parallel regions opened around sequential loops; their loops' pragmas
    replace those of `suggestions`. `lifetimes`: device data kept across functions;
    `waits`: runs of `async` kernels, a `wait` after each.
    """
    data = text.encode("utf-8", errors="surrogateescape")
    newline = "\r\n" if b"\r\n" in data else "\n"
    inside = {s.loop.id: s for region in hoisted for s in region.loops}
    suggestions = tuple(inside.get(s.loop.id, s) for s in suggestions)
    marked = routine_functions(
        (s.options.dialect, s.routines)
        for s in suggestions
        if s.pragma is not None and s.existing is None
    )
    suggestions = tuple(
        s
        for s in suggestions
        if s.loop.function not in marked.get(s.options.dialect, frozenset())
    )
    # (offset, order at that offset, text)
    edits: list[tuple[int, int, str]] = hoisted_edits(data, hoisted, newline)
    edits += lifetime_edits(data, lifetimes, newline)
    edits += async_edits(data, waits, newline)
    opened: set[int] = set()
    routines: set[tuple[int, object]] = set()
    atomics: set[tuple[int, str]] = set()
    for suggestion in suggestions:
        region = suggestion.region
        if region is not None and region.loops[0].id not in opened:
            opened.add(region.loops[0].id)
            start, indent = _line_bounds(data, region.start.start_byte)
            pad = indent.decode("utf-8", errors="replace")
            opening = region.pragma.written(pad, newline)
            if region.pragma.braces():
                edits.append((start, 0, f"{opening}{newline}{pad}{{{newline}"))
                edits.append((region.end.end_byte, 0, f"{newline}{pad}}}"))
            else:
                edits.append((start, 0, f"{opening}{newline}"))
                closing = region.pragma.region_end()
                lead = region.pragma.indent(pad)
                edits.append((region.end.end_byte, 3, f"{newline}{lead}{closing}"))
        if suggestion.pragma is None or suggestion.existing is not None:
            continue
        targets = [(suggestion.loop.keyword.start_byte, suggestion.pragma)]
        for atomic in suggestion.atomics:
            # A statement updated under a loop nest is atomic for the outer
            # loop and for the inner one: one pragma makes it atomic, a second
            # stacked above it does not compile.
            key = (atomic.span.start_byte, atomic.pragma.render())
            if key not in atomics:
                atomics.add(key)
                targets.append((atomic.span.start_byte, atomic.pragma))
        closing_lines = suggestion.pragma.end_lines()
        if closing_lines:
            _, indent = _line_bounds(data, suggestion.loop.keyword.start_byte)
            pad = suggestion.pragma.indent(indent.decode("utf-8", errors="replace"))
            closing = "".join(f"{newline}{pad}{line}" for line in closing_lines)
            edits.append((suggestion.loop.span.end_byte, 2, closing))
        keyword = suggestion.loop.keyword.start_byte
        # The unbraced body of a statement: `{ }` around the pragma and its loop,
        # or a parser without a preprocessor ends the outer statement at the pragma.
        braced = suggestion.pragma.braces() and unbraced_body(data, keyword)
        if braced:
            pad = _line_bounds(data, keyword)[1].decode("utf-8", errors="replace")
            edits.append((suggestion.loop.span.end_byte, 2, f"{newline}{pad}}}"))
        prefix = suggestion.pragma.head_prefix()
        if prefix:
            edits.append((suggestion.loop.keyword.start_byte, 1, prefix))
        for routine in suggestion.routines:
            if (routine.start, routine.pragma) in routines:
                continue  # two loops call the same function
            routines.add((routine.start, routine.pragma))
            targets.append((routine.start, routine.pragma))
            if routine.end is not None:
                closing = f"{newline}{end_pragma().render()}"
                edits.append((routine.end, 0, closing))
        for offset, pragma in targets:
            start, indent = _line_bounds(data, offset)
            before = data[start:offset]
            pad = indent.decode("utf-8", errors="replace")
            lines = pragma.written(pad, newline)
            if braced and offset == keyword:
                lines = f"{pad}{{{newline}{lines}"
            if before.strip():
                # The statement shares its line with other code: break the line.
                edits.append((offset, 1, f"{newline}{lines}{newline}{pad}"))
            else:
                edits.append((start, 1, f"{lines}{newline}"))
    return [
        (offset, insert) for offset, _, insert in sorted(edits, key=lambda e: e[:2])
    ]


def annotate_text(
    text: str,
    suggestions: tuple[Suggestion, ...],
    hoisted: Sequence[HoistedRegion] = (),
    lifetimes: Sequence[DeviceLifetime] = (),
    waits: Sequence[AsyncRun] = (),
) -> str:
    """The text with every suggested pragma (hoisted region, lifetime) inserted."""
    data = text.encode("utf-8", errors="surrogateescape")
    out: list[bytes] = []
    last = 0
    for offset, insert in insertions(text, suggestions, hoisted, lifetimes, waits):
        out.append(data[last:offset])
        out.append(insert.encode("utf-8"))
        last = offset
    out.append(data[last:])
    return b"".join(out).decode("utf-8", errors="surrogateescape")
