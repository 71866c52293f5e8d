"""A shared scalar in two worksharing loops of one phase: the first ends `nowait`.

The dependence test reads one loop, and ACC111 (`nowait` between loops) follows
arrays only, so a variable updated under `critical(a)` in one loop and read or
updated under `critical(b)`, or plainly, in the next is paired here: a thread
past the first loop's end runs the second while others still run the first.
A name a construct around the access privatizes (`reduction`, `private`,
`firstprivate`, `lastprivate`, `linear`) is its own copy there: no pair.
"""

from __future__ import annotations

from accls.analysis.mhp_access import Access
from accls.analysis.mhp_model import RegionModel
from accls.analysis.pragma_scope import clause_names

__all__ = ["loops_share_scalar"]

_PRIVATIZING = frozenset(
    {"private", "firstprivate", "lastprivate", "reduction", "linear"}
)


def _own_copy(model: RegionModel, access: Access) -> bool:
    """True when a construct inside the region around `access` privatizes its name."""
    name = access.location.name
    for construct in model.constructs:
        span = construct.span
        if not span.start_byte <= access.ref.span.start_byte < span.end_byte:
            continue
        if name in clause_names((construct.directive,), _PRIVATIZING):
            return True
    return False


def loops_share_scalar(model: RegionModel, a: Access, b: Access) -> bool:
    """True when `a` and `b` touch one scalar from two different worksharing loops."""
    if a.unit == b.unit or a.via is not None or b.via is not None:
        return False
    if not a.location.form == b.location.form == "scalar":
        return False
    return not (_own_copy(model, a) or _own_copy(model, b))
