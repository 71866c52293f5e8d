"""Two accesses that meet whenever their loops run, over symbolic bounds.

`for (k = 0; k < s.n; k++) s.v[k] = ...;` and a read of `s.v[s.n - 1]`, both run
by every thread: for each value of `s.n` the write loop runs for (s.n >= 1), one
of its iterations writes the element the read reads. A race in every run that
performs the write, though no literal bound says which iteration it is.
"""

from __future__ import annotations

import islpy as isl

from accls.analysis.mhp_bounds import Sweep
from accls.analysis.mhp_env import Location
from accls.analysis.polyhedra import Row, build

__all__ = ["meets_every_run"]

_FORMS = frozenset({"loop", "const"})  # run by every thread over the same range


def _known(key: str, a: Location, b: Location) -> bool:
    """True when `key` (`k@1`) is a loop variable bounded on both sides."""
    var, side = key.split("@")
    bounds: tuple[Sweep, ...] = a.bounds if side == "1" else b.bounds
    found = [s for s in bounds if s.var == var]
    return bool(found) and all(s.low is not None and s.high is not None for s in found)


def meets_every_run(
    rows: list[Row], ranges: list[Row], a: Location, b: Location
) -> bool:
    """True when the subscripts meet for every shared value the loops run for.

    Both accesses index by sequential loops every thread runs, or by nothing that
    changes; every loop variable the subscripts use has both bounds, so each
    point of `ranges` is an iteration that runs. Then projecting out the loop
    variables, the values for which both ranges are nonempty must all have a
    point where the subscripts are equal.
    """
    if a.form not in _FORMS or b.form not in _FORMS:
        return False
    hit = [*rows, *ranges]
    keys = sorted({key for item in hit for key, _ in item.coeffs})
    loops = [key for key in keys if "@" in key]
    if not loops or any(k.startswith("tid@") or not _known(k, a, b) for k in loops):
        return False
    front = [key for key in keys if "@" not in key]
    order = (*front, *loops)

    def shadow(found: list[Row]) -> isl.Set:
        poly = build(found, order)
        return poly.bset.project_out(isl.dim_type.set, len(front), len(loops)).to_set()

    return bool(shadow(ranges).is_subset(shadow(hit)))
