"""Declare pointer parameters `restrict` when aliasing alone keeps a loop serial.

`restrict` is the programmer's promise that, while the function runs, the
memory reached through one pointer is reached through no other: the pointers
never refer to overlapping memory. A caller that passes overlapping buffers
then makes the program wrong, so the promise is offered, never assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis import (
    AnalysisOptions,
    FileAnalysis,
    LoopFacts,
    analyze_text,
    overlapping_calls,
    restrict_parameters,
)
from accls.frontend import HeaderContext, restrict_insertions
from accls.suggest.options import SuggestOptions
from accls.suggest.rules import suggest_file
from accls.suggest.suggestion import Suggestion, with_inner

__all__ = [
    "PROMISE",
    "RestrictRewrite",
    "add_restrict",
    "parallel_with_restrict",
    "restrict_all",
]

PROMISE = (
    "`restrict` promises that, while the function runs, these pointers never "
    "refer to overlapping memory; if a caller passes overlapping buffers, the "
    "program is wrong"
)
"""What the promise means, for titles and hovers."""

Edit = tuple[int, int, str]
"""Replace bytes [start, end) with the text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RestrictRewrite:
    """The edits that declare a function's pointer parameters `restrict`."""

    loop: int  # the loop's id
    function: str
    names: tuple[str, ...]  # the parameters, in declaration order
    edits: tuple[Edit, ...]  # sorted, disjoint, in byte offsets of the old text
    text: str  # the edited text
    summary: str  # one line for titles and hovers


def _shown(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def add_restrict(
    text: str, analysis: FileAnalysis, facts: LoopFacts
) -> RestrictRewrite | None:
    """The `restrict` edit for a loop whose only obstacle is aliasing, if any."""
    names = restrict_parameters(facts, analysis.source)
    function = facts.loop.function
    if not names or function is None:
        return None
    if overlapping_calls(analysis.source, function, names, analysis.program):
        return None  # a caller here passes one buffer twice: the promise is false
    found = restrict_insertions(text, function, names)
    if not found:
        return None
    data = text.encode("utf-8", errors="surrogateescape")
    out: list[bytes] = []
    last = 0
    for at, new in found:
        out += [data[last:at], new.encode("utf-8")]
        last = at
    out.append(data[last:])
    return RestrictRewrite(
        loop=facts.loop.id,
        function=function,
        names=names,
        edits=tuple((at, at, new) for at, new in found),
        text=b"".join(out).decode("utf-8", errors="surrogateescape"),
        summary=f"{_shown(names)} of `{function}()` declared `restrict`: {PROMISE}",
    )


def _moved(rewrite: RestrictRewrite) -> int:
    """The loop's id in the edited text: its start byte, after the insertions."""
    return rewrite.loop + sum(
        len(new.encode("utf-8")) for at, _, new in rewrite.edits if at <= rewrite.loop
    )


def parallel_with_restrict(
    text: str,
    analysis: FileAnalysis,
    facts: LoopFacts,
    options: SuggestOptions,
    analysis_options: AnalysisOptions,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> tuple[RestrictRewrite, tuple[Suggestion, ...]] | None:
    """The `restrict` edit of a loop and its suggestions (inner loops included).

    None unless the edited text, analysed again, gives the loop a pragma.
    """
    if analysis_options.assume_no_alias:
        return None  # aliasing is already granted: nothing to promise
    rewrite = add_restrict(text, analysis, facts)
    if rewrite is None:
        return None
    again = analyze_text(rewrite.text, path, include_dirs, analysis_options, context)
    moved = _moved(rewrite)
    mine = next((f for f in again.facts if f.loop.id == moved), None)
    if mine is None or not mine.parallel:
        return None
    after = suggest_file(again, options)
    top = next((s for s in after if s.loop.id == moved and not s.inner), None)
    if top is None or top.pragma is None or top.existing is not None:
        return None
    return rewrite, with_inner(top, after)


def restrict_all(
    text: str,
    analysis_options: AnalysisOptions,
    path: str | None = None,
    include_dirs: Sequence[str] = (),
    context: HeaderContext | None = None,
) -> tuple[str, tuple[RestrictRewrite, ...]]:
    """The text with every `restrict` edit that makes its loop parallel applied."""
    done: list[RestrictRewrite] = []
    if analysis_options.assume_no_alias:
        return text, ()
    tried: set[tuple[str, tuple[str, ...]]] = set()
    while True:
        analysis = analyze_text(text, path, include_dirs, analysis_options, context)
        for facts in analysis.facts:
            rewrite = add_restrict(text, analysis, facts)
            if rewrite is None or (rewrite.function, rewrite.names) in tried:
                continue
            tried.add((rewrite.function, rewrite.names))
            again = analyze_text(
                rewrite.text, path, include_dirs, analysis_options, context
            )
            moved = _moved(rewrite)
            mine = next((f for f in again.facts if f.loop.id == moved), None)
            if mine is None or not mine.parallel:
                continue
            done.append(rewrite)
            text = rewrite.text
            break
        else:
            return text, tuple(done)
