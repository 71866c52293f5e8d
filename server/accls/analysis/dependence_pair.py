"""One pair of references to an array, and the dependences built from it.

The parts of the dependence test that need no polyhedra: the pair itself,
dependences assumed when nothing is proved, and those of a uniform distance
over a box-shaped domain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis.model import Dependence, DepKind
from accls.analysis.nest_views import View
from accls.frontend import Loop, Ref

__all__ = [
    "Pair",
    "Vector",
    "assumed",
    "dep_kind",
    "direction_of",
    "equal_vector",
    "from_box",
    "make_dependence",
    "same_chain",
]

Vector = tuple[tuple[str, ...], tuple[int | None, ...]]
"""Direction and distance per common loop."""


@dataclass(frozen=True, slots=True)
class Pair:
    """Two references to one array, `first` no later than `second` in the text."""

    array: str
    first: View
    second: View
    common: tuple[Loop, ...]  # the common loops, outermost first
    unordered: frozenset[int]  # common levels whose variable does not order them
    stale: int = 0  # leading common levels across which a symbol or pointer changes
    why_stale: str = ""

    @property
    def same(self) -> bool:
        """True when the pair is one reference against itself."""
        return self.first.ref is self.second.ref

    @property
    def ids(self) -> tuple[int, ...]:
        """Ids of the common loops."""
        return tuple(loop.id for loop in self.common)

    @property
    def signs(self) -> tuple[int, ...]:
        """Per common level: 1 when its variable increases, -1 when it decreases."""
        return tuple(-1 if (loop.step or 0) < 0 else 1 for loop in self.common)


def dep_kind(early: Ref, late: Ref) -> DepKind:
    """Flow, anti or output, from the earlier reference to the later one."""
    if early.is_write:
        return DepKind.FLOW if late.is_read else DepKind.OUTPUT
    return DepKind.ANTI


def make_dependence(
    pair: Pair, forward: bool, vector: Vector, carrier: int | None, reason: str = ""
) -> Dependence:
    """A dependence of `pair`, from `first` to `second` when `forward`."""
    early, late = (pair.first, pair.second) if forward else (pair.second, pair.first)
    return Dependence(
        array=pair.array,
        kind=dep_kind(early.ref, late.ref),
        source=early.ref.span,
        sink=late.ref.span,
        loops=pair.ids,
        direction=vector[0],
        distance=vector[1],
        carrier=carrier,
        exact=not reason,
        reason=reason,
    )


def equal_vector(count: int) -> Vector:
    """The vector of the same iteration at `count` levels."""
    return ("=",) * count, (0,) * count


def assumed(pair: Pair, reason: str, levels: int | None = None) -> list[Dependence]:
    """Dependences assumed both ways at the first `levels` common levels.

    By default at every level, with the loop-independent one too.
    """
    count = len(pair.common)
    vague: Vector = (("*",) * count, (None,) * count)
    out: list[Dependence] = []
    for carrier in pair.ids[:levels]:
        out.append(make_dependence(pair, True, vague, carrier, reason))
        if not pair.same:
            out.append(make_dependence(pair, False, vague, carrier, reason))
    if not pair.same and levels is None:
        out.append(make_dependence(pair, True, equal_vector(count), None, reason))
    return out


def direction_of(low: int | None, high: int | None) -> str:
    """The direction of a distance between `low` and `high`."""
    if low is not None and low > 0:
        return "<"
    if high is not None and high < 0:
        return ">"
    return "=" if low == high == 0 else "*"


def same_chain(pair: Pair) -> bool:
    """True when both references sit in the same loops with the same free levels."""
    left, right = pair.first.frame, pair.second.frame
    return (
        len(left.loops) == len(right.loops) == len(pair.common)
        and left.free == right.free
    )


def from_box(
    pair: Pair, distance: tuple[int | None, ...], widths: Sequence[int | None]
) -> list[Dependence]:
    """The dependences of a uniform pair over a box domain, without isl."""
    along = [
        None if d is None else d * s for d, s in zip(distance, pair.signs, strict=True)
    ]
    for d, width in zip(along, widths, strict=True):
        if width is not None and (width < 0 or (d is not None and abs(d) > width)):
            return []

    def entry(pos: int, flip: int) -> tuple[str, int | None]:
        d, width = along[pos], widths[pos]
        if d is not None:
            return direction_of(d * flip, d * flip), d * flip
        return ("=", 0) if width == 0 else ("*", None)

    out: list[Dependence] = []
    for level, d in enumerate(along):
        width = widths[level]
        for flip in (1,) if pair.same else (1, -1):
            if d is not None and d * flip <= 0:
                continue
            if d is None and width is not None and width < 1:
                continue
            gap = abs(d) if d is not None else (1 if width == 1 else None)
            cells = [("=", 0)] * level + [("<", gap)]
            cells += [entry(pos, flip) for pos in range(level + 1, len(along))]
            vector = tuple(c[0] for c in cells), tuple(c[1] for c in cells)
            out.append(make_dependence(pair, flip > 0, vector, pair.ids[level]))
        if d:
            return out
    if not pair.same:
        out.append(make_dependence(pair, True, equal_vector(len(along)), None))
    return out
