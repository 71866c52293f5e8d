"""The section an `update` at host code moves: what that code touches, when proved.

`printf("%f", r[0])` between two kernels needs `update self(r[0:1])`, not the
whole of `r`; a host loop over `u[0:m]` needs that section. The section is taken
from the host statement's one reference (a 1-D array, a polynomial subscript whose
symbols the statement does not change, no call that could) or from the host
loop's references (a known section whose symbols the loop does not change), and
only when it lies within what the lifetime keeps. Anything else, a call that
touches the array above all, moves the kept section whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from accls.analysis import FileAnalysis
from accls.analysis.aliasing import array_decl
from accls.analysis.array_sections import (
    ArrayUse,
    loop_array_uses,
    plain_names,
    union_section,
)
from accls.frontend import Function, Poly, library_function
from accls.frontend.exprs import expression_poly
from accls.suggest.allocated_extents import allocated_section
from accls.suggest.lifetime_places import HostAccess, Places

__all__ = ["holds_all", "host_uses", "update_section"]


def _ref_uses(
    access: HostAccess, name: str, fn: Function, analysis: FileAnalysis, places: Places
) -> tuple[ArrayUse, ...] | None:
    ref = access.ref
    if ref is None or ref.fortran or ref.deref or ref.member or ref.field:
        return None
    var = array_decl(name, fn, analysis.source.globals)
    one_dim = var is not None and (
        (var.pointers == 1 and not var.dims)
        or (var.pointers == 0 and len(var.dims) == 1)
    )
    if not one_dim or len(ref.subscripts) != 1 or ref.subscripts[0].indirect:
        return None
    start = expression_poly(ref.subscripts[0].text)
    if start is None:
        return None
    if places.written(access.before, access.after, plain_names(start.names())):
        return None  # `u[k++]`: the subscript's value at the update is another
    if any(
        access.before <= c.span.start_byte < access.after
        and library_function(c.name) is None
        for c in fn.call_sites
    ):
        return None  # a call of the statement may change the subscript's symbols
    box = ((start, Poly.const(1)),)
    section = f"{name}[{start.render()}:1]"
    use = ArrayUse(
        name=name,
        read=ref.is_read,
        written=ref.is_write,
        read_first=ref.is_read,
        section=section,
        exact_cover=False,
        known=True,
        box=box,
    )
    return (use,)


def _loop_uses(
    access: HostAccess, name: str, analysis: FileAnalysis, places: Places
) -> tuple[ArrayUse, ...] | None:
    loop = access.loop
    if loop is None:
        return None
    uses = tuple(u for u in loop_array_uses(loop, analysis) if u.name == name)
    if not uses or any(not u.known or u.box is None for u in uses):
        return None
    symbols = plain_names(
        {n for u in uses for pair in u.box or () for p in pair for n in p.names()}
    )
    if places.written(loop.span.start_byte, loop.span.end_byte, symbols):
        return None  # the section's symbols change while the loop runs
    return uses


def host_uses(
    access: HostAccess, name: str, fn: Function, analysis: FileAnalysis, places: Places
) -> tuple[ArrayUse, ...] | None:
    """What the host code of `access` touches of `name`; None: unknown, the whole."""
    if access.loop is not None:
        return _loop_uses(access, name, analysis, places)
    return _ref_uses(access, name, fn, analysis, places)


def update_section(
    whole: str,
    kept: Sequence[ArrayUse],
    touched: Sequence[ArrayUse] | None,
    holds_all: bool,
) -> str:
    """The section to update: the hull of `touched` within the kept one, or `whole`.

    `kept`: the device's uses, whose hull the lifetime keeps (`whole`);
    `holds_all`: it keeps the whole array (a static one, or the whole block a
    pointer was allocated), where every element a valid program touches lies.
    Else the hull must lie within `whole` whether or not the loops run (their
    facts set aside): an element outside it is not present on the device.
    """
    if not touched:
        return whole
    hull, known = union_section(list(touched))
    if not known or hull is None:
        return whole
    if holds_all:
        return hull
    bare = [replace(u, facts=()) for u in (*kept, *touched)]
    around, known = union_section(bare)
    return hull if known and around == whole else whole


def holds_all(name: str, section: str | None, fn: Function) -> bool:
    """True when a kept `section` of `name` is the whole array."""
    if section is None:
        return True  # a static array, kept whole
    return section == allocated_section(name, fn.lookup(name), fn)
