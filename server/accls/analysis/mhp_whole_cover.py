"""A worksharing loop that writes every element meets any access of the array.

`#pragma omp taskloop` (or `for`) over `i` from 0 to N - 1 writing `a[i]`, with
`a` declared `a[N]`: every element is written by some thread (or task), so an
access of `a` the model cannot follow (`a[i]` in a loop dealt by thread number)
meets one of the writes whichever element it touches within the array. The
loop's iterations all run (a worksharing loop has no `break`); a write under a
branch of the body is not every element.
"""

from __future__ import annotations

from accls.analysis.mhp_access import Access
from accls.analysis.mhp_callee_tasks import folded_value
from accls.analysis.mhp_env import Environment
from accls.analysis.mhp_overlap import Overlap

__all__ = ["whole_cover"]


def _every_element(access: Access, env: Environment) -> bool:
    """True when `access` is a worksharing loop's unguarded `a[i]` over all of `a`."""
    loc = access.location
    length = dict(env.lengths).get(loc.name, 0)
    if loc.form != "ws" or len(loc.index) != 1 or length <= 0 or access.ref.guarded:
        return False
    if not access.ref.is_write:
        return False
    constants = dict(env.constants)
    for sweep in loc.bounds:
        if sweep.var != loc.index[0] or sweep.low is None or sweep.high is None:
            continue
        low, high = (
            folded_value(sweep.low, constants),
            folded_value(sweep.high, constants),
        )
        if low is not None and high is not None and low <= 0 and length - 1 <= high:
            return True
    return False


def whole_cover(a: Access, b: Access, env: Environment) -> Overlap | None:
    """`same` when one side writes every element and the other is any one of them."""
    for whole, other in ((a, b), (b, a)):
        one = other.location.form == "varying" and len(other.location.index) == 1
        if one and _every_element(whole, env):
            return Overlap("same")
    return None
