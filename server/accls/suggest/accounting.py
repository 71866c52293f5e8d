"""Every loop of a file accounted for: collapsed, inner, or refused with a reason."""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis import FileAnalysis
from accls.frontend import Loop
from accls.suggest.options import SuggestOptions
from accls.suggest.rules import reference_suggestion
from accls.suggest.suggestion import Suggestion

__all__ = ["account_for_loops"]


def _covering(s: Suggestion) -> str | None:
    """The construct a suggestion puts on its loop, if it runs it in parallel."""
    if s.pragma is not None:
        return s.pragma.render()
    return s.existing


def _existing_depth(existing: str) -> int:
    """How many loops an existing pragma's `collapse(n)` covers."""
    _, found, rest = existing.partition("collapse(")
    digits = rest.split(")", 1)[0].strip() if found else ""
    return int(digits) if digits.isdigit() else 1


def _collapsed(s: Suggestion) -> tuple[int, ...]:
    """Ids of the loops a suggestion's own or existing `collapse(n)` covers."""
    if s.pragma is not None:
        return s.collapsed
    if s.existing is None:
        return ()
    level: list[Loop] = [s.loop]
    out: list[int] = []
    for _ in range(_existing_depth(s.existing) - 1):
        level = [child for loop in level for child in loop.children]
        out.extend(loop.id for loop in level)
    return tuple(out)


def account_for_loops(
    analysis: FileAnalysis, suggestions: Sequence[Suggestion]
) -> tuple[Suggestion, ...]:
    """The suggestions plus one entry for each loop they leave out, in source order.

    A loop left out is collapsed into an enclosing loop's pragma (`collapsed_into`),
    runs inside a parallel loop (`inner_of`), or is refused with its reasons.
    """
    if not suggestions:
        return tuple(suggestions)
    opts = suggestions[0].options
    seen = {s.loop.id: s for s in suggestions}
    folded: dict[int, Suggestion] = {}
    for s in suggestions:
        if _covering(s) is not None:
            folded.update((lid, s) for lid in _collapsed(s))
    added: list[Suggestion] = []

    def visit(loop: Loop, around: Suggestion | None) -> None:
        own = seen.get(loop.id)
        if own is None:
            added.append(_entry(loop, around, folded.get(loop.id), analysis, opts))
        elif _covering(own) is not None:
            around = own
        for child in loop.children:
            visit(child, around)

    for nest in analysis.source.nests:
        visit(nest, None)
    if not added:
        return tuple(suggestions)
    merged = [*suggestions, *added]
    return tuple(sorted(merged, key=lambda s: s.loop.id))


def _entry(
    loop: Loop,
    around: Suggestion | None,
    folded: Suggestion | None,
    analysis: FileAnalysis,
    opts: SuggestOptions,
) -> Suggestion:
    facts = analysis.of(loop)
    if folded is not None:
        text = _covering(folded)
        return Suggestion(
            loop=loop,
            facts=facts,
            options=folded.options,
            pragma=None,
            reasons=(f"collapsed into `{text}` at line {folded.loop.line}",),
            inner=True,
            collapsed_into=folded.loop.id,
        )
    if around is not None:
        text = _covering(around)
        return Suggestion(
            loop=loop,
            facts=facts,
            options=around.options,
            pragma=None,
            reasons=(
                f"runs inside each iteration of the loop at line {around.loop.line}, "
                f"which `{text}` runs in parallel",
                # A loop that could take a level of its own says why it cannot.
                *(o.message for o in facts.obstacles if not facts.parallel),
            ),
            inner=True,
            inner_of=around.loop.id,
        )
    alone = reference_suggestion(analysis, loop, opts)
    reasons = alone.reasons if alone.pragma is None else ()
    return Suggestion(
        loop=loop,
        facts=facts,
        options=opts,
        pragma=None,
        reasons=reasons
        or ("not offered: an enclosing loop was the candidate and got no pragma",),
    )
