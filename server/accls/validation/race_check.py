"""Race-check suggestions: run the check catalog on the file with them in place."""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis import AnalysisOptions, Finding, analyze
from accls.check import check_source
from accls.frontend import parse_source
from accls.suggest import Suggestion
from accls.suggest.annotate import annotate_text, insertions

__all__ = ["race_check"]

_BLOCKING = frozenset({"race", "data"})


def _shift(edits: list[tuple[int, str]], offset: int, *, inclusive: bool) -> int:
    """Where byte `offset` of the original lands once `edits` are applied."""
    moved = offset
    for at, text in edits:
        if at < offset or (inclusive and at == offset):
            moved += len(text.encode("utf-8"))
    return moved


def race_check(
    text: str,
    path: str,
    suggestions: Sequence[Suggestion],
    dialect: str,
    include_dirs: Sequence[str] = (),
) -> dict[int, tuple[Finding, ...]]:
    """Error findings (race or data) that fall on each suggestion, by loop id."""
    offered = tuple(s for s in suggestions if s.pragma is not None and not s.existing)
    if not offered:
        return {}
    annotated = annotate_text(text, offered)
    edits = insertions(text, offered)
    source = parse_source(annotated, path, include_dirs)
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
        start = _shift(edits, loop.keyword.start_byte, inclusive=False)
        start -= (
            len(suggestion.pragma.render().encode("utf-8")) + 1
            if suggestion.pragma
            else 0
        )
        end = _shift(edits, loop.span.end_byte, inclusive=False)
        hits = tuple(f for f in errors if start <= f.span.start_byte < end)
        if hits:
            out[loop.id] = hits
    return out
