"""Cheap exact tests on subscript equalities: GCD, bounds, and uniform distances."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import gcd

from accls.analysis.polyhedra import Row

__all__ = [
    "box_widths",
    "no_integer_solution",
    "out_of_range",
    "uniform_distance",
]


def no_integer_solution(eqs: Sequence[Row]) -> bool:
    """The GCD test: some equality has no integer solution at all."""
    for item in eqs:
        step = 0
        for _, coeff in item.coeffs:
            step = gcd(step, coeff)
        if (step == 0 and item.const != 0) or (step and item.const % step):
            return True
    return False


def out_of_range(eqs: Sequence[Row], ranges: Mapping[str, tuple[int, int]]) -> bool:
    """A Banerjee-style test: some equality cannot reach zero within the ranges.

    `ranges` gives constant bounds per variable key; an equality that mentions
    any other variable is left alone.
    """
    for item in eqs:
        low = high = item.const
        for key, coeff in item.coeffs:
            if key not in ranges:
                break
            lo, hi = ranges[key]
            low += min(coeff * lo, coeff * hi)
            high += max(coeff * lo, coeff * hi)
        else:
            if low > 0 or high < 0:
                return True
    return False


def _distance_system(eqs: Sequence[Row], count: int) -> list[list[int]] | None:
    """Rows `a . d = b` (as [a..., b]) in d = t - s, or None when not uniform."""
    system: list[list[int]] = []
    for item in eqs:
        coeffs = dict(item.coeffs)
        line = [0] * (count + 1)
        for key, coeff in item.coeffs:
            level = int(key[1:]) if key[0] in "st" and key[1:].isdigit() else count
            twin = ("t" if key[0] == "s" else "s") + key[1:]
            if level >= count or coeffs.get(twin) != -coeff:
                return None
            if key[0] == "s":
                # a*s - a*t + c == 0  is  a*d == c
                line[level] = coeff
        line[count] = item.const
        system.append(line)
    return system


def uniform_distance(
    eqs: Sequence[Row], count: int
) -> tuple[bool, tuple[int | None, ...] | None]:
    """(determined, d): the distance d = t - s the equalities force, per level.

    Applies when every equality has the same linear part on both sides and
    those parts pin down each level they mention; a level they never mention
    is free (None). Otherwise not determined. A determined None means no
    integer distance satisfies the equalities.
    """
    system = _distance_system(eqs, count)
    if system is None:
        return False, None
    pivots: dict[int, int] = {}
    rank = 0
    for col in range(count):
        pivot = next((r for r in range(rank, len(system)) if system[r][col]), None)
        if pivot is None:
            if any(line[col] for line in system):
                return False, None  # mentioned but not pinned down
            continue
        system[rank], system[pivot] = system[pivot], system[rank]
        lead = system[rank]
        for r, other in enumerate(system):
            if r != rank and other[col]:
                factor = other[col]
                system[r] = [
                    lead[col] * a - factor * b for a, b in zip(other, lead, strict=True)
                ]
        pivots[col] = rank
        rank += 1
    if any(line[count] for line in system[rank:]):
        return True, None
    # Gauss-Jordan left one coefficient per pivot row: divide it out exactly.
    values: list[int | None] = []
    for col in range(count):
        if col not in pivots:
            values.append(None)
            continue
        line = system[pivots[col]]
        value, remainder = divmod(line[count], line[col])
        if remainder:
            return True, None
        values.append(value)
    return True, tuple(values)


def box_widths(rows: Sequence[Row], count: int) -> list[int | None] | None:
    """The widest gap between two values of each level's variable in the domain.

    Answers only for box domains, where each row bounds one variable with
    invariant symbols; None otherwise. A width is None when unbounded: symbols
    are free, as isl parameters are, so a gap that grows with every symbol it
    mentions can always be made wide enough, at every level at once.
    """
    lows: list[list[Row]] = [[] for _ in range(count)]
    highs: list[list[Row]] = [[] for _ in range(count)]
    for item in rows:
        dims = [(key, c) for key, c in item.coeffs if not key.startswith("p:")]
        if item.equality or len(dims) != 1 or dims[0][1] not in (1, -1):
            return None
        key, coeff = dims[0]
        if not key[1:].isdigit() or int(key[1:]) >= count:
            return None
        (lows if coeff == 1 else highs)[int(key[1:])].append(item)
    widths: list[int | None] = []
    for level in range(count):
        width: int | None = None
        for low in lows[level]:
            for high in highs[level]:
                # v + a >= 0 and -v + b >= 0: values differ by at most a + b.
                gap: dict[str, int] = {}
                for key, coeff in (*low.coeffs, *high.coeffs):
                    if key.startswith("p:"):
                        gap[key] = gap.get(key, 0) + coeff
                if any(c < 0 for c in gap.values()):
                    return None
                if not any(gap.values()):
                    bound = low.const + high.const
                    width = bound if width is None else min(width, bound)
        widths.append(width)
    return widths
