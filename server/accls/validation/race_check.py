"""Race-check suggestions: run the check catalog on the file with them in place."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from itertools import accumulate

from accls.analysis import AnalysisOptions, Finding, analyze
from accls.analysis.checks import check_source
from accls.frontend import HeaderContext, parse_source
from accls.suggest import Suggestion
from accls.suggest.annotate import annotate_text, insertions

__all__ = ["race_check"]

_BLOCKING = frozenset({"race", "result", "data"})


class _Shifts:
    """Where bytes of the original land once insertions are applied.

    Sorted once with running totals, so each question is a binary search, not a
    pass over every insertion (10,000 suggestions made 10^8 steps).
    """

    def __init__(self, edits: list[tuple[int, str]]) -> None:
        ordered = sorted((at, len(text.encode("utf-8"))) for at, text in edits)
        self._at = [at for at, _ in ordered]
        self._before = list(accumulate((size for _, size in ordered), initial=0))

    def moved(self, offset: int, *, inclusive: bool) -> int:
        """`offset` plus what was inserted before it (at it, when `inclusive`)."""
        count = (bisect_right if inclusive else bisect_left)(self._at, offset)
        return offset + self._before[count]


def _moved_lines(
    text: str, edits: list[tuple[int, str]], lines: frozenset[int]
) -> frozenset[int]:
    """The 1-based `lines` of `text`, numbered as in the text with `edits` made."""
    data = text.encode("utf-8", errors="surrogateescape")
    starts = [0, *(k + 1 for k, byte in enumerate(data) if byte == 0x0A)]
    at = sorted(offset for offset, _ in edits)
    added = list(accumulate((t.count("\n") for _, t in sorted(edits)), initial=0))
    out: set[int] = set()
    for line in lines:
        if 0 < line <= len(starts):
            # Text inserted at or before the line's first byte moves it down.
            out.add(line + added[bisect_right(at, starts[line - 1])])
    return frozenset(out)


def race_check(
    text: str,
    path: str,
    suggestions: Sequence[Suggestion],
    dialect: str,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> dict[int, tuple[Finding, ...]]:
    """Error findings (race or data) that fall on each suggestion, by loop id.

    With `context` (the build's view of `text`), the annotated text is read the
    same way: its skipped lines moved down past the inserted pragma lines.
    """
    offered = tuple(s for s in suggestions if s.pragma is not None and not s.existing)
    if not offered:
        return {}
    annotated = annotate_text(text, offered)
    edits = insertions(text, offered)
    shifts = _Shifts(edits)
    if context is not None and context.inactive:
        context = replace(context, inactive=_moved_lines(text, edits, context.inactive))
    source = parse_source(annotated, path, include_dirs, context=context)
    findings = check_source(analyze(source, AnalysisOptions(dialect=dialect)), dialect)
    errors = [
        f
        for f in findings
        if f.level.value == "error" and f.kind.category.value in _BLOCKING
    ]
    out: dict[int, tuple[Finding, ...]] = {}
    for suggestion in offered:
        loop = suggestion.loop
        # From the pragma line inserted above the loop to the loop's last byte.
        start = shifts.moved(loop.keyword.start_byte, inclusive=False)
        start -= (
            len(suggestion.pragma.render().encode("utf-8")) + 1
            if suggestion.pragma
            else 0
        )
        end = shifts.moved(loop.span.end_byte, inclusive=False)
        hits = tuple(f for f in errors if start <= f.span.start_byte < end)
        if hits:
            out[loop.id] = hits
    return out
