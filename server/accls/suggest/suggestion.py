"""What the suggestion layer answers for one loop: a pragma with its reasons, or not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis import LoopFacts
from accls.frontend import Loop, Span
from accls.suggest.options import SuggestOptions
from accls.suggest.pragma import Dialect, Pragma, Target
from accls.suggest.regions import DataRegion
from accls.suggest.routines import RoutineEdit
from accls.suggest.source import Source

__all__ = ["Alternative", "Atomic", "Suggestion", "with_inner"]


@dataclass(frozen=True, slots=True)
class Atomic:
    """A statement inside a parallel loop that must be made atomic."""

    span: Span
    pragma: Pragma


@dataclass(frozen=True, slots=True)
class Alternative:
    """A candidate pragma that was not offered, where it came from, and why."""

    text: str
    source: Source
    why: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Suggestion:
    """The answer for one loop: a pragma with its reasons, or a refusal."""

    loop: Loop
    facts: LoopFacts
    options: SuggestOptions
    pragma: Pragma | None
    reasons: tuple[str, ...]
    inner: bool = False  # a loop inside another loop's construct
    collapsed: tuple[int, ...] = ()  # ids of inner loops folded in by collapse
    atomics: tuple[Atomic, ...] = ()
    existing: str | None = None  # a pragma the user already wrote on this loop
    source: Source = Source.ANALYSIS
    region: DataRegion | None = None  # a proposed data region this loop belongs to
    alternatives: tuple[Alternative, ...] = ()  # candidates dropped or outranked
    caution: str | None = None  # the assumption a model pragma on a refused loop makes
    collapsed_into: int | None = None  # id of the loop whose pragma collapses this one
    inner_of: int | None = None  # id of the parallel loop this one runs inside
    score: float | None = None  # the model's mean token logprob, for model pragmas
    withdrawn: str | None = None  # why validation took the pragma back, when it did
    # directives that give the functions the loop calls a device version
    routines: tuple[RoutineEdit, ...] = ()

    @property
    def offloaded(self) -> bool:
        """Whether the pragma runs the loop on a device (OpenACC or OpenMP target)."""
        return (
            self.options.dialect is Dialect.OPENACC or self.options.target is Target.GPU
        )


def with_inner(top: Suggestion, all_: Sequence[Suggestion]) -> tuple[Suggestion, ...]:
    """`top` and the inner-loop pragmas of `all_` that go with it."""
    span = top.loop.span
    inner = [
        s
        for s in all_
        if s.inner
        and s.pragma is not None
        and s.existing is None
        and span.start_byte < s.loop.span.start_byte < span.end_byte
    ]
    return (top, *inner)
