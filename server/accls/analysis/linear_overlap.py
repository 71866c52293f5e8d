"""Elements that a `linear` variable makes two iterations share.

`#pragma omp parallel for linear(j: 1)` gives iteration k the value `j0 + k` of
`j` until the body changes it. A body that writes `o[j]` and `o[j + 1]` (and
steps `j` by two, as if the clause said so) then writes `o[j0 + k + 1]` twice:
as its second element in iteration k and as its first in iteration k + 1. Two
references `a[j + c]` and `a[j + c']` made before the body's first write of `j`,
on every iteration (no condition around them), meet exactly when the step
divides `c' - c`: a proved dependence between iterations `(c' - c) / step`
apart, not a doubt.
"""

from __future__ import annotations

from accls.analysis.model import Dependence
from accls.analysis.race_exemptions import linear_offset, linear_steps
from accls.frontend import Directive, Loop, Ref, Span

__all__ = ["linear_collision"]


def linear_collision(
    dep: Dependence, directive: Directive, refs: dict[Span, Ref], loop: Loop
) -> str:
    """Why the pair meets through a `linear` variable's values, or ""."""
    one, two = refs.get(dep.source), refs.get(dep.sink)
    if one is None or two is None or not (one.is_write or two.is_write):
        return ""
    if one.guarded or two.guarded:
        return ""  # maybe not on every iteration
    for var, step in linear_steps(directive).items():
        first, second = linear_offset(one, var), linear_offset(two, var)
        if first is None or second is None or step == 0:
            continue
        changed = min(
            (r.span.start_byte for r in loop.refs if r.name == var and r.is_write),
            default=loop.span.end_byte,
        )
        if max(one.span.start_byte, two.span.start_byte) >= changed:
            continue  # read after the body moves the variable
        gap = second - first
        if gap == 0 or gap % step:
            continue
        return (
            f"`linear({var}: {step})` makes `{var}` its value before the loop "
            f"plus {step}*k in iteration k until the body changes it, so "
            f"`{one.render()}` (line "
            f"{one.span.line}) and `{two.render()}` (line {two.span.line}) name one "
            f"element in iterations {abs(gap // step)} apart"
        )
    return ""
