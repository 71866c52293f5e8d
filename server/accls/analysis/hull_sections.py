"""The section of a one-dimensional array read over two extents the loops cannot order.

`y[i]` for `i < n` and `y[k]` for `k < m` in one nest: the box of
`array_sections` needs the larger of `n - 1` and `m - 1`, which no fact
decides, so the array had no section and the whole nest no data clause. Both
ranges start at one known lowest element, and every element the nest touches
lies between it and the larger of the ends: `y[0:(n > m ? n : m)]`. The hull
holds no element outside the object either, since the elements at both of its
ends are ones the nest touches. Its elements between the references' ranges
are moved too, so the hull is only ever read (`copyin`) or copied both ways
(`copy`), never `copyout`: an element the nest does not write goes back as it
came.
"""

from __future__ import annotations

from accls.analysis.array_sections import section_length, unconditional
from accls.analysis.section_box import loop_range, pick_bound
from accls.frontend import Loop, Poly, Ref

__all__ = ["hull_section"]

_MAX_ENDS = 3
"""More ends than this make a clause no one would read."""


def _larger(a: str, b: str) -> str:
    return f"({a} > {b} ? {a} : {b})"


def _ends(refs: list[Ref], loop: Loop) -> list[tuple[Poly, Poly]] | None:
    """Each reference's lowest and highest element over the nest's ranges."""
    ranges: list[tuple[str, Poly, Poly]] = []
    owner: dict[str, int] = {}
    for inner in reversed(loop.walk()):  # innermost first: see section_box
        found = loop_range(inner)
        if inner.var is None or found is None:
            return None
        ranges.append((inner.var, *found))
        owner[inner.var] = inner.id
    if len(owner) < len(ranges):
        return None  # a name reused by sibling loops: one range per name
    variant = set(owner) | {v.name for v in loop.locals}
    variant |= {r.name for r in loop.refs if r.is_write and not r.subscripts}
    out: list[tuple[Poly, Poly]] = []
    for ref in refs:
        sub = ref.subscripts[0]
        if sub.poly is None or sub.indirect or not sub.poly.is_affine:
            return None
        if any(owner[v] not in ref.loops for v in sub.poly.names() & owner.keys()):
            return None  # a variable after its loop: its exit value, no range
        low = _extreme(sub.poly, ranges, high=False)
        high = _extreme(sub.poly, ranges, high=True)
        if low is None or high is None or (low.names() | high.names()) & variant:
            return None
        out.append((low, high))
    return out


def _extreme(
    poly: Poly, ranges: list[tuple[str, Poly, Poly]], high: bool
) -> Poly | None:
    """`poly` at its lowest (or highest) over the ranges, innermost variable first."""
    for var, lo, hi in ranges:
        if var not in poly.names():
            continue
        if not poly.is_affine:
            return None  # `var * m`: its sign is not the coefficient's
        coeff = poly.coeff(var)
        if coeff:
            poly = poly.substitute({var: hi if (coeff > 0) == high else lo})
    return poly


def hull_section(loop: Loop, name: str, facts: list[Poly]) -> str | None:
    """`name[low:length]` covering every reference of `name` in the nest, or None.

    Only for a C array indexed in one dimension by affine subscripts that
    every iteration evaluates (no branch may skip one, so each end is an
    element the program touches), whose lowest elements `facts` (forms
    `>= 0`) order.
    """
    refs = [r for r in loop.refs if r.name == name]
    if not refs or any(
        len(r.subscripts) != 1 or r.deref or r.fortran or not unconditional(r, loop.id)
        for r in refs
    ):
        return None
    ends = _ends(refs, loop)
    if ends is None:
        return None
    low: Poly | None = ends[0][0]
    for lo, _ in ends[1:]:
        low = None if low is None else pick_bound(low, lo, False, facts)
    if low is None:
        return None
    tops: list[Poly] = []
    for _, hi in ends:
        if any(pick_bound(t, hi, True, facts) == t for t in tops):
            continue  # no larger than an end already kept
        tops = [t for t in tops if pick_bound(t, hi, True, facts) != hi] + [hi]
    if len(tops) < 2 or len(tops) > _MAX_ENDS:
        return None  # one end: the box of `array_sections` already has it
    lengths = [section_length(t - low + Poly.const(1)) for t in tops]
    text = lengths[0]
    for length in lengths[1:]:
        text = _larger(text, length)
    return f"{name}[{low.render()}:{text}]"
