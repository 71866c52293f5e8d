"""The dialects whose device pragmas (`routine`, `declare target`) mark a function."""

from __future__ import annotations

from accls.frontend import Function

__all__ = ["device_marks"]


def device_marks(fn: Function) -> frozenset[str]:
    """The dialects of the pragmas that compile `fn` for the device."""
    return frozenset(
        d.dialect
        for d in fn.pragmas
        if d.name.startswith("routine")
        or ("declare target" in d.name and not d.name.startswith("end"))
    )
