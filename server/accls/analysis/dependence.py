"""Exact array dependence analysis of a loop nest, with isl and safe fallbacks.

Distances are measured along each loop's own order, in units of its variable:
a decreasing loop that reads `a[i+1]` after writing `a[i]` has distance 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from accls.analysis.delinearize import Model, equalities
from accls.analysis.model import Dependence, DepKind
from accls.analysis.nest_views import NestViews, View, nest_views
from accls.analysis.polyhedra import Polyhedron, Row, bounds, build, is_empty, restrict
from accls.analysis.subscript_tests import (
    no_integer_solution,
    out_of_range,
    uniform_distance,
)
from accls.frontend import Loop, Ref

__all__ = ["nest_dependences"]

_UNORDERED = "the loop at line {line} has no constant step to order its iterations"

Vector = tuple[tuple[str, ...], tuple[int | None, ...]]
"""Direction and distance per common loop."""


@dataclass(frozen=True, slots=True)
class _Pair:
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


def _kind(early: Ref, late: Ref) -> DepKind:
    if early.is_write:
        return DepKind.FLOW if late.is_read else DepKind.OUTPUT
    return DepKind.ANTI


def _dep(
    pair: _Pair, forward: bool, vector: Vector, carrier: int | None, reason: str = ""
) -> Dependence:
    early, late = (pair.first, pair.second) if forward else (pair.second, pair.first)
    return Dependence(
        array=pair.array,
        kind=_kind(early.ref, late.ref),
        source=early.ref.span,
        sink=late.ref.span,
        loops=pair.ids,
        direction=vector[0],
        distance=vector[1],
        carrier=carrier,
        exact=not reason,
        reason=reason,
    )


def _equal(count: int) -> Vector:
    return ("=",) * count, (0,) * count


def _assumed(pair: _Pair, reason: str, levels: int | None = None) -> list[Dependence]:
    """Dependences assumed both ways at the first `levels` common levels.

    By default at every level, with the loop-independent one too.
    """
    count = len(pair.common)
    vague: Vector = (("*",) * count, (None,) * count)
    out: list[Dependence] = []
    for carrier in pair.ids[:levels]:
        out.append(_dep(pair, True, vague, carrier, reason))
        if not pair.same:
            out.append(_dep(pair, False, vague, carrier, reason))
    if not pair.same and levels is None:
        out.append(_dep(pair, True, _equal(count), None, reason))
    return out


_DETAIL_LEVELS = 2
"""Levels below the carrier that get an exact direction and distance."""


def _direction(low: int | None, high: int | None) -> str:
    if low is not None and low > 0:
        return "<"
    if high is not None and high < 0:
        return ">"
    return "=" if low == high == 0 else "*"


def _vector(poly: Polyhedron, level: int, pair: _Pair, flip: bool) -> Vector:
    """Direction and distance per common loop over the dependence set `poly`."""
    dirs: list[str] = []
    dists: list[int | None] = []
    for pos in range(len(pair.common)):
        if pos in pair.unordered:
            dirs.append("*")
            dists.append(None)
        elif pos < level:
            dirs.append("=")
            dists.append(0)
        elif pos > level + (_DETAIL_LEVELS if len(pair.common) <= 4 else 0):
            # Only the carrier's distance decides anything; past a few levels the
            # exact min/max over a deep nest costs more than it tells.
            dirs.append("*")
            dists.append(None)
        else:
            low, high = bounds(poly, pos)
            if flip:
                low, high = (
                    (None if high is None else -high),
                    (None if low is None else -low),
                )
            dirs.append(_direction(low, high))
            dists.append(low if low is not None and low == high else None)
    return tuple(dirs), tuple(dists)


def _deltas(pair: _Pair) -> list[Row]:
    """Rows naming x_k, the distance at level k measured along the loop's order."""
    return [
        Row(((f"x{k}", 1), (f"t{k}", -sign), (f"s{k}", sign)), equality=True)
        for k, sign in enumerate(pair.signs)
    ]


def _exact(pair: _Pair, rows: Sequence[Row]) -> list[Dependence]:
    """Every dependence of the pair, level by level, from the isl relation."""
    count = len(pair.common)
    poly = build((*rows, *_deltas(pair)), [f"x{k}" for k in range(count)])
    out: list[Dependence] = []
    reason = ""
    for level, carrier in enumerate(pair.ids):
        # An unordered level cannot say "same iteration": leave it free, soundly.
        if level and level - 1 not in pair.unordered:
            poly = restrict(poly, level - 1, 0, 0)
        if is_empty(poly):
            return out
        if level in pair.unordered:
            reason = _UNORDERED.format(line=pair.common[level].line)
            vector = _vector(poly, level, pair, False)
            out.append(_dep(pair, True, vector, carrier, reason))
            if not pair.same:
                out.append(_dep(pair, False, vector, carrier, reason))
            continue
        later = restrict(poly, level, 1, None)
        if not is_empty(later):
            out.append(_dep(pair, True, _vector(later, level, pair, False), carrier))
        if not pair.same:
            earlier = restrict(poly, level, None, -1)
            if not is_empty(earlier):
                vector = _vector(earlier, level, pair, True)
                out.append(_dep(pair, False, vector, carrier))
    if not pair.same:
        if count and count - 1 not in pair.unordered:
            poly = restrict(poly, count - 1, 0, 0)
        if not is_empty(poly):
            out.append(_dep(pair, True, _equal(count), None, reason))
    return out


def _same_chain(pair: _Pair) -> bool:
    """True when both references sit in the same loops with the same free levels."""
    left, right = pair.first.frame, pair.second.frame
    return (
        len(left.loops) == len(right.loops) == len(pair.common)
        and left.free == right.free
    )


def _from_box(
    pair: _Pair, distance: tuple[int | None, ...], widths: Sequence[int | None]
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
            return _direction(d * flip, d * flip), d * flip
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
            out.append(_dep(pair, flip > 0, vector, pair.ids[level]))
        if d:
            return out
    if not pair.same:
        out.append(_dep(pair, True, _equal(len(along)), None))
    return out


def _from_distance(
    pair: _Pair, distance: tuple[int | None, ...], rows: Sequence[Row]
) -> list[Dependence] | None:
    """The dependences of a pair whose subscripts force `distance`; None if unsure."""
    if pair.same and not any(d is None or d for d in distance):
        return []  # each access meets only itself
    widths = pair.first.widths
    if _same_chain(pair) and widths is not None:
        return _from_box(pair, distance, widths)
    if any(d is None for d in distance):
        return None
    fixed = (
        Row(((f"t{k}", 1), (f"s{k}", -1)), -(d or 0), equality=True)
        for k, d in enumerate(distance)
    )
    if is_empty(build((*rows, *fixed))):
        return []
    return _from_box(pair, distance, [None] * len(distance))


def _ranges(pair: _Pair) -> dict[str, tuple[int, int]]:
    """Constant bounds of the iteration variables, for the fallback test."""
    out: dict[str, tuple[int, int]] = {}
    for view, side in ((pair.first, "s"), (pair.second, "t")):
        for level, loop in enumerate(view.frame.loops):
            low, high = loop.lower, loop.upper
            if level in view.frame.free or low is None or high is None:
                continue
            if not (low.is_constant and high.is_constant) or not loop.step:
                continue
            shift = {"<": -1, ">": 1, "<=": 0, ">=": 0}.get(loop.cond_op or "")
            if shift is not None:
                ends = (low.constant, high.constant + shift)
                out[f"{side}{level}"] = (min(ends), max(ends))
    return out


def _modelled(pair: _Pair) -> list[Dependence]:
    """The dependences of a pair whose subscripts are modelled, by exact tests."""
    models: list[Model] = []
    for view in (pair.first, pair.second):
        if isinstance(view.subscripts, str):
            return _assumed(pair, view.subscripts)
        models.append(view.subscripts)
    context = (*pair.first.domains[0], *pair.second.domains[1])
    eqs: tuple[Row, ...] | str = ()
    try:
        eqs = equalities(
            pair.array,
            (pair.first.texts, pair.second.texts),
            (models[0].polys, models[1].polys),
            context,
        )
        if isinstance(eqs, str):
            return _assumed(pair, eqs)
        if no_integer_solution(eqs):
            return []
        rows = (*context, *eqs)
        if not pair.unordered:
            determined, distance = uniform_distance(eqs, len(pair.common))
            if determined and distance is None:
                return []
            if distance is not None:
                found = _from_distance(pair, distance, rows)
                if found is not None:
                    return found
        return _exact(pair, rows)
    except Exception:  # the analysis must answer, soundly, for any input
        if isinstance(eqs, tuple) and out_of_range(eqs, _ranges(pair)):
            return []
        return _assumed(pair, f"the exact test failed for `{pair.array}`")


def _pair_dependences(pair: _Pair) -> list[Dependence]:
    """The dependences between the two references of `pair`."""
    if pair.stale and pair.stale >= len(pair.common):
        return _assumed(pair, pair.why_stale)
    found = _modelled(pair)
    if not pair.stale:
        return found
    # Within one iteration of the stale levels the changing names hold still,
    # so the exact answer stands for the deeper levels and the same iteration.
    stale = set(pair.ids[: pair.stale])
    kept = [dep for dep in found if dep.carrier not in stale]
    return _assumed(pair, pair.why_stale, pair.stale) + kept


def _common(left: tuple[Loop, ...], right: tuple[Loop, ...]) -> tuple[Loop, ...]:
    count = 0
    while count < min(len(left), len(right)) and left[count].id == right[count].id:
        count += 1
    return left[:count]


def _staleness(
    nest: NestViews, array: str, views: tuple[View, View], common: tuple[Loop, ...]
) -> tuple[int, str]:
    """How many leading common levels see a subscript symbol or the pointer change."""
    writes: list[frozenset[int]] = []
    why = ""
    for view in views:
        if isinstance(view.subscripts, Model) and view.subscripts.changing:
            why = why or view.subscripts.note
            writes.extend(nest.loops_writing(n) for n in view.subscripts.changing)
    assigned = nest.loops_assigning(array)
    if assigned:
        why = why or f"`{array}` is reassigned inside the loop"
        writes.append(assigned)
    if any(not ids for ids in writes):
        return len(common), why  # written outside any known loop: trust nothing
    stale = 0
    for level, loop in enumerate(common):
        if any(loop.id in ids for ids in writes):
            stale = level + 1
    return stale, why


def nest_dependences(
    root: Loop, known: NestViews | None = None
) -> tuple[Dependence, ...]:
    """Every array dependence inside the loop nest `root`.

    One per ordered pair of references and carrying level, plus loop-independent
    ones (carrier None) between distinct references in the same iteration.
    `known` is `nest_views(root)`, when the caller has it already.
    """
    nest = known if known is not None else nest_views(root)
    out: list[Dependence] = []
    for array, views in nest.arrays.items():
        for at, left in enumerate(views):
            for right in views[at:]:
                if not (left.ref.is_write or right.ref.is_write):
                    continue
                common = _common(left.frame.loops, right.frame.loops)
                unordered = frozenset(
                    k for k, loop in enumerate(common) if loop.id in nest.unordered
                )
                stale, why = _staleness(nest, array, (left, right), common)
                pair = _Pair(array, left, right, common, unordered, stale, why)
                out.extend(_pair_dependences(pair))
    return tuple(out)
