"""A sequential sweep over a whole array meets whatever element the other side touches.

`table[k]` for every `k` from 0 to the declared extent less one, in a `single` or
a `master`, writes each element of `table`; an access that may run in parallel
with it, `table[i % T]` or `table[idx[j]]`, touches one element of the same
array, so the two meet whatever the other's subscript is (an index outside the
array is no access of it). The sweep must run whole: no condition around the
access inside its loop, and no `break`, `continue`, `goto` or `return` in it.
"""

from __future__ import annotations

import re

from accls.analysis.mhp_callee_tasks import covers
from accls.analysis.mhp_env import Location
from accls.analysis.mhp_model import Access, RegionModel
from accls.analysis.mhp_overlap import Overlap

__all__ = ["whole_sweep"]

_CUT = re.compile(rb"\b(?:break|continue|goto|return)\b|\blongjmp\s*\(")


def _runs_whole(data: bytes, sweep: Access) -> bool:
    """True when every iteration of the sweep's loop reaches the access."""
    if sweep.ref.guarded or sweep.location.form != "loop":
        return False
    var = sweep.location.index[0]
    loops = [s for s in sweep.location.bounds if s.var == var]
    return bool(loops) and all(not _CUT.search(data[s.start : s.end]) for s in loops)


def whole_sweep(
    model: RegionModel, data: bytes, a: Access, b: Access
) -> Overlap | None:
    """Overlap("same") when one of two accesses sweeps the whole array; else None."""
    if a is b or len(a.location.index) != 1 or len(b.location.index) != 1:
        return None
    length = dict(model.env.lengths).get(a.location.name, 0)
    if length <= 0:
        return None
    constants = dict(model.env.constants)
    for sweep, other in ((a, b), (b, a)):
        if other.location.form == "scalar" or not _runs_whole(data, sweep):
            continue
        some = Location(a.location.name, "some", other.location.index, extent=length)
        if covers(sweep.location, some, constants):
            return Overlap("same")
    return None
