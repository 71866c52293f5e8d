"""Which pairs of worksharing accesses the region's pair check leaves to others.

Two accesses of one worksharing loop, or of two `for` loops, are the
dependence test's and ACC111's (a `nowait` between loops). Two `taskloop`s are
neither's: their iterations are tasks, which `nogroup` leaves running past the
construct, so an access of each, when the tasks are not ordered, is compared here
like any other pair, element by element over the two loops' ranges.
"""

from __future__ import annotations

from accls.analysis.mhp_model import Access, RegionModel

__all__ = ["left_to_loop_checks"]


def _taskloop(model: RegionModel, access: Access) -> int | None:
    """The innermost task of `access` when it is a taskloop's, else None."""
    if not access.tasks:
        return None
    task = model.task(access.tasks[-1])
    return task.id if task.taskloop else None


def left_to_loop_checks(model: RegionModel, a: Access, b: Access) -> bool:
    """True when the dependence test or ACC111 decides the pair, not this check."""
    forms = {a.location.form, b.location.form}
    if a.unit == b.unit and a.unit.kind == "loop" and forms & {"ws", "varying"}:
        return True
    if a.location.form != "ws" or b.location.form != "ws":
        return False
    one, other = _taskloop(model, a), _taskloop(model, b)
    return one is None or other is None or one == other
