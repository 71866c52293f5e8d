"""The exact dependence test of one pair of references, with safe fallbacks.

isl's polyhedra give the direction and distance at each level where both
subscripts are modelled; otherwise the subscript tests (GCD, ranges, uniform
distances) decide, and what none of them settles is assumed.
"""

from __future__ import annotations

from collections.abc import Sequence

from accls.analysis.delinearize import Model, on_side
from accls.analysis.dependence_pair import (
    Pair,
    Vector,
    assumed,
    direction_of,
    equal_vector,
    from_box,
    make_dependence,
    same_chain,
)
from accls.analysis.model import Dependence
from accls.analysis.polyhedra import Polyhedron, Row, bounds, build, is_empty, restrict
from accls.analysis.remainders import loosened
from accls.analysis.subscript_equalities import equalities
from accls.analysis.subscript_tests import (
    no_integer_solution,
    out_of_range,
    uniform_distance,
)

__all__ = ["pair_dependences"]

_UNORDERED = "the loop at line {line} has no constant step to order its iterations"

_DETAIL_LEVELS = 2
"""Levels below the carrier that get an exact direction and distance."""


def _vector(poly: Polyhedron, level: int, pair: Pair, flip: bool) -> Vector:
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
            dirs.append(direction_of(low, high))
            dists.append(low if low is not None and low == high else None)
    return tuple(dirs), tuple(dists)


def _deltas(pair: Pair) -> list[Row]:
    """Rows naming x_k, the distance at level k measured along the loop's order."""
    return [
        Row(((f"x{k}", 1), (f"t{k}", -sign), (f"s{k}", sign)), equality=True)
        for k, sign in enumerate(pair.signs)
    ]


def _apart(rows: Sequence[Row], pair: Pair, level: int, sign: int) -> Polyhedron | None:
    """At a level stepped by a symbol `T`: iterations `T` or more apart, `sign`-wards.

    Two distinct iterations of `for (j = 0; j < n; j += T)` differ by at least
    `T`: affine in the parameter `T`, which proves tiles disjoint. None at a
    level with a constant step.
    """
    symbol = pair.common[level].step_symbol
    if not symbol:
        return None
    count = len(pair.common)
    same = [
        Row(((f"x{k}", 1),), 0, equality=True)
        for k in range(level)
        if k not in pair.unordered
    ]
    gap = Row(((f"x{level}", sign), (f"p:{symbol}", -1)), 0)
    front = [f"x{k}" for k in range(count)]
    return build((*rows, *_deltas(pair), *same, gap), front)


def _exact(pair: Pair, rows: Sequence[Row]) -> list[Dependence]:
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
            out.append(make_dependence(pair, True, vector, carrier, reason))
            if not pair.same:
                out.append(make_dependence(pair, False, vector, carrier, reason))
            continue
        later = _apart(rows, pair, level, 1) or restrict(poly, level, 1, None)
        if not is_empty(later):
            out.append(
                make_dependence(pair, True, _vector(later, level, pair, False), carrier)
            )
        if not pair.same:
            earlier = _apart(rows, pair, level, -1) or restrict(poly, level, None, -1)
            if not is_empty(earlier):
                vector = _vector(earlier, level, pair, True)
                out.append(make_dependence(pair, False, vector, carrier))
    if not pair.same:
        if count and count - 1 not in pair.unordered:
            poly = restrict(poly, count - 1, 0, 0)
        if not is_empty(poly):
            out.append(make_dependence(pair, True, equal_vector(count), None, reason))
    return out


def _from_distance(
    pair: Pair, distance: tuple[int | None, ...], rows: Sequence[Row]
) -> list[Dependence] | None:
    """The dependences of a pair whose subscripts force `distance`; None if unsure."""
    if pair.same and not any(d is None or d for d in distance):
        return []  # each access meets only itself
    widths = pair.first.widths
    if same_chain(pair) and widths is not None:
        return from_box(pair, distance, widths)
    if any(d is None for d in distance):
        return None
    fixed = (
        Row(((f"t{k}", 1), (f"s{k}", -1)), -(d or 0), equality=True)
        for k, d in enumerate(distance)
    )
    if is_empty(build((*rows, *fixed))):
        return []
    return from_box(pair, distance, [None] * len(distance))


def _ranges(pair: Pair) -> dict[str, tuple[int, int]]:
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


def _modelled(pair: Pair) -> list[Dependence]:
    """The dependences of a pair whose subscripts are modelled, by exact tests."""
    models: list[Model] = []
    for view in (pair.first, pair.second):
        if isinstance(view.subscripts, str):
            return assumed(pair, view.subscripts)
        models.append(view.subscripts)
    context = (
        *pair.first.domains[0],
        *on_side(models[0].rows, "s"),
        *pair.second.domains[1],
        *on_side(models[1].rows, "t"),
    )
    eqs: tuple[Row, ...] | str = ()
    try:
        eqs = equalities(
            pair.array,
            (pair.first.texts, pair.second.texts),
            (models[0].polys, models[1].polys),
            context,
            (pair.first.frame.loops, pair.second.frame.loops),
        )
        if isinstance(eqs, str):
            return assumed(pair, eqs)
        if no_integer_solution(eqs):
            return []
        rows = (*context, *eqs)
        if not pair.unordered and not any(loop.step_symbol for loop in pair.common):
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
        return assumed(pair, f"the exact test failed for `{pair.array}`")


def pair_dependences(pair: Pair) -> list[Dependence]:
    """The dependences between the two references of `pair`."""
    if pair.stale and pair.stale >= len(pair.common):
        return assumed(pair, pair.why_stale)
    models = [v.subscripts for v in (pair.first, pair.second)]
    rows = [m.rows for m in models if isinstance(m, Model)]
    found = loosened(_modelled(pair), rows, pair.array)
    if not pair.stale:
        return found
    # Within one iteration of the stale levels the changing names hold still,
    # so the exact answer stands for the deeper levels and the same iteration.
    stale = set(pair.ids[: pair.stale])
    kept = [dep for dep in found if dep.carrier not in stale]
    return assumed(pair, pair.why_stale, pair.stale) + kept
