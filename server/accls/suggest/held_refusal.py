"""Refusing offloaded nests that would bypass the user's device copies.

`held_copies` (C) and `fortran_holds` (Fortran) find the loop spans whose
offload the user's holds make unsafe; both withdraw the suggestions inside
them the same way.
"""

from __future__ import annotations

from dataclasses import replace

from accls.suggest.suggestion import Suggestion

__all__ = ["HeldSpan", "offloaded_nest", "refused_in"]

# A loop's byte span and why offloading it is refused.
HeldSpan = tuple[int, int, tuple[str, ...]]


def offloaded_nest(s: Suggestion) -> bool:
    """An offloading pragma of the user's choice to make: the nest's outer one."""
    return s.pragma is not None and not s.inner and s.existing is None and s.offloaded


def refused_in(s: Suggestion, spans: list[HeldSpan]) -> Suggestion:
    """`s`, withdrawn with its span's reasons when it starts inside one of `spans`."""
    for a, b, why in spans:
        if s.pragma is not None and a <= s.loop.span.start_byte < b:
            return replace(s, pragma=None, reasons=why, region=None, routines=())
    return s
