"""Estimated bytes a lifetime's arrays move, before (every kernel copies) and after."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from accls.analysis import FileAnalysis
from accls.analysis.array_sections import ArrayUse, loop_array_uses
from accls.analysis.cost import constant_macros
from accls.frontend import Function, Poly, Var
from accls.frontend.exprs import expression_poly

if TYPE_CHECKING:
    from accls.suggest.lifetime_places import Places
    from accls.suggest.lifetime_uses import DeviceEvent
    from accls.suggest.lifetimes import Kept
    from accls.suggest.regions import DataRegion

__all__ = ["Moved", "moved_bytes", "region_bytes"]

_SIZES = {"double": 8, "long": 8, "float": 4, "int": 4, "unsigned": 4, "char": 1}
_DIM = re.compile(r"\[([^\[\]:]*):([^\[\]]*)\]")


@dataclass(frozen=True, slots=True)
class Moved:
    """Bytes moved between host and device, as rendered estimates."""

    before: str  # `about 2560*n bytes`
    after: str
    saves: bool | None = None  # after < before; False also when no term gains

    @property
    def reason(self) -> str:
        """The line the hover and the reasons show."""
        return f"estimated transfers: {self.before} before, {self.after} after"


def _decl(fn: Function, name: str, analysis: FileAnalysis) -> Var | None:
    var = fn.lookup(name)
    if var is not None:
        return var
    return next((g for g in analysis.source.globals if g.name == name), None)


def _element(var: Var | None, macros: Mapping[str, str]) -> int:
    if var is None:
        return 8
    kind = macros.get(var.type, var.type).split()
    return _SIZES.get(kind[-1] if kind else "", 8)


def _section_bytes(section: str, var: Var | None, size: int) -> Poly | None:
    """Bytes of `u[0:n]` (its lengths) or of a whole static array (its extents)."""
    lengths = [m.group(2) for m in _DIM.finditer(section)]
    if not lengths and var is not None:
        lengths = [d for d in var.dims if d is not None]
        if len(lengths) != len(var.dims):
            return None
    total = Poly.const(size)
    for text in lengths:
        poly = expression_poly(text)
        if poly is None:
            return None
        total = total * poly
    return total


def _moves(use: ArrayUse) -> int:
    if not use.written:
        return 1  # copyin
    return 1 if use.exact_cover and not use.read_first else 2


def _times(places: Places, offset: int, first: int, last: int) -> Poly | None:
    # A `while` loop's trips are unknown: `iterations` stands for them.
    repeats = places.repeats_unknown(offset, first, last)
    total = Poly.sym("iterations") if repeats else Poly.const(1)
    for loop in places.trips(offset, first, last):
        trips = expression_poly(loop.trip_count or "")
        if trips is None:
            return None
        total = total * trips
    return total


def _add(total: Poly | None, more: Poly | None) -> Poly | None:
    return None if total is None or more is None else total + more


def _mul(a: Poly | None, b: Poly | None) -> Poly | None:
    return None if a is None or b is None else a * b


def moved_bytes(
    analysis: FileAnalysis,
    fn: Function,
    events: Sequence[DeviceEvent],
    kept: Sequence[Kept],
    places: Places,
    updates: Mapping[tuple[int, bool, str], Sequence[str]],
    span: tuple[int, int],
) -> Moved:
    """The kernels' copies of the kept arrays (before) against the lifetime's."""
    source = analysis.source
    macros = dict(source.macros)
    names = {k.name for k in kept}
    first, last = span
    before: Poly | None = Poly()
    for event in events:
        times = _times(places, event.span.start_byte, first, last)
        for use in event.uses:
            if use.name not in names:
                continue
            var = _decl(fn, use.name, analysis)
            size = _section_bytes(use.section or use.name, var, _element(var, macros))
            moved = _mul(size, Poly.const(_moves(use)))
            before = _add(before, _mul(moved, times))
    after: Poly | None = Poly()
    sections = {k.name: k.section for k in kept}
    for k in kept:
        var = _decl(fn, k.name, analysis)
        size = _section_bytes(k.section, var, _element(var, macros))
        count = (k.enter == "copyin") + (k.exit == "copyout")
        after = _add(after, _mul(size, Poly.const(count)))
    for (offset, _, _), items in updates.items():
        times = _times(places, offset, first, last)
        for item in dict.fromkeys(items):
            name = next((n for n, s in sections.items() if s == item), item)
            var = _decl(fn, name, analysis)
            size = _section_bytes(item, var, _element(var, macros))
            after = _add(after, _mul(size, times))
    values = constant_macros(source)
    saves: bool | None = None
    if before is not None and after is not None:
        gain = (before - after).substitute(values)
        if gain.is_constant:
            saves = gain.constant > 0
        elif all(coeff <= 0 for _, coeff in gain.terms):
            # Sizes and trip counts are never negative: no term of the gain is
            # positive, so the lifetime moves at least what the kernels did.
            saves = False
    return Moved(_render(before, values), _render(after, values), saves)


_COUNTS = {"copy": 2, "copyin": 1, "copyout": 1, "tofrom": 2, "to": 1, "from": 1}


def _region_count(region: DataRegion, item: str) -> int:
    """How often the region's clauses move `item`: copy twice, copyin/copyout once."""
    for clause in region.pragma.clauses:
        kind, _, items = (clause.args or "").partition(":")
        kind = kind.strip() if clause.name == "map" and items else clause.name
        listed = items if clause.name == "map" and items else clause.args or ""
        if item in (part.strip() for part in listed.split(",")):
            return _COUNTS.get(kind, 2)
    return 2


def region_bytes(analysis: FileAnalysis, region: DataRegion) -> Moved:
    """The region's loops' own copies of its arrays (before) against the region's."""
    source = analysis.source
    fn = source.function(region.loops[0].function or "")
    if fn is None:
        return Moved(_render(None, {}), _render(None, {}))
    macros = dict(source.macros)
    names = {name for name, _ in region.present}
    times: Poly | None = Poly.const(1)
    if region.around is not None:
        # Unknown trips: `iterations` stands for them, as for a `while` loop.
        trips = expression_poly(region.around.trip_count or "")
        times = trips if trips is not None else Poly.sym("iterations")
    before: Poly | None = Poly()
    for loop in region.loops:
        for use in loop_array_uses(loop, analysis):
            if use.name not in names:
                continue
            var = _decl(fn, use.name, analysis)
            size = _section_bytes(use.section or use.name, var, _element(var, macros))
            moved = _mul(size, Poly.const(_moves(use)))
            before = _add(before, _mul(moved, times))
    after: Poly | None = Poly()
    for name, item in region.present:
        var = _decl(fn, name, analysis)
        size = _section_bytes(item, var, _element(var, macros))
        after = _add(after, _mul(size, Poly.const(_region_count(region, item))))
    values = constant_macros(source)
    return Moved(_render(before, values), _render(after, values))


def _render(poly: Poly | None, values: Mapping[str, Poly]) -> str:
    if poly is None:
        return "an unknown number of bytes"
    return f"about {poly.substitute(values).render()} bytes"
