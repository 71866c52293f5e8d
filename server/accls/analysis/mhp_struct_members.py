"""A whole structure read or written at once touches each of its members.

`snap = st` reads `st.hits` as surely as `st.hits` does, and `*snap = *p` reads
`p->hits`: the region's pairs join accesses of one name, so a whole access is
repeated under the name of each member the region touches on its own
(`st.hits`, `p->hits`), and is met there by the member's own accesses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from accls.analysis.mhp_access import Access

__all__ = ["spread_members"]


def _whole(access: Access) -> tuple[str, str] | None:
    """(the object's name, its member separator) for a whole-object access."""
    ref, loc = access.ref, access.location
    if ref.member or ref.field:
        return None
    if loc.form == "scalar" and not ref.deref and "." not in loc.name:
        return loc.name, "."  # a structure variable: `st`
    if loc.form == "const" and loc.index == ("0",) and ref.deref:
        return loc.name, "->"  # a pointee: `*p`
    return None


def spread_members(accesses: Sequence[Access]) -> list[Access]:
    """The accesses, and each whole-object access again under each member's name."""
    names = {a.location.name for a in accesses}
    out = list(accesses)
    for access in accesses:
        whole = _whole(access)
        if whole is None:
            continue
        prefix = whole[0] + whole[1]
        for name in sorted(n for n in names if n.startswith(prefix)):
            if not name[len(prefix) :].isidentifier():
                continue  # `p->a.b` or `p->a[i]`: not one member of this object
            place = replace(
                access.location, name=name, form="scalar", index=(), polys=()
            )
            out.append(replace(access, location=place))
    return out
