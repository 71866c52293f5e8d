"""An OpenACC perfect nest: a pragma per level, or `collapse` for a short level.

Experts give a perfect nest a pragma per level far more often than `collapse`:
of the dev sources' top-level OpenACC nests of two perfectly nested parallel
loops, 104 carry a `loop` pragma on the inner loop and 5 fold it by `collapse`,
with nothing in their trip counts to tell the two apart. The outer loop then
fills the gangs and the inner one the vector lanes, with no flat index to split
again. `collapse` pays where a level is too short to fill its share of the GPU:
an outer loop of a few iterations leaves most gangs idle, an inner loop shorter
than a warp leaves vector lanes idle. accls folds the nest only then, when the
trip count is known (a constant, or a macro that is one).
"""

from __future__ import annotations

from accls.analysis import FileAnalysis
from accls.analysis.cost_features import constant_macros
from accls.frontend import Loop
from accls.frontend.exprs import expression_poly

__all__ = ["FEW_GANGS", "FEW_LANES", "per_level_reason", "short_level"]

FEW_GANGS = 128
"""An outer loop of fewer iterations leaves most of a GPU's multiprocessors idle."""

FEW_LANES = 32
"""An inner loop of fewer iterations leaves lanes of a 32-wide warp idle."""


def _trips(loop: Loop, analysis: FileAnalysis) -> int | None:
    """The loop's trip count, when it is a constant (macros substituted)."""
    poly = expression_poly(loop.trip_count) if loop.trip_count else None
    if poly is None:
        return None
    poly = poly.substitute(constant_macros(analysis.source))
    return max(poly.constant, 0) if poly.is_constant else None


def short_level(chain: list[Loop], analysis: FileAnalysis) -> str:
    """Why the perfect nest `chain` folds into one `collapse`, or "" to keep levels.

    A level is short when its known trip count cannot fill it: the outer loop
    below `FEW_GANGS` iterations, an inner one below `FEW_LANES`.
    """
    for depth, loop in enumerate(chain):
        trips = _trips(loop, analysis)
        least = FEW_GANGS if depth == 0 else FEW_LANES
        if trips is None or trips >= least:
            continue
        room = (
            f"fewer than the {FEW_GANGS} gangs a GPU wants"
            if depth == 0
            else f"fewer than a warp's {FEW_LANES} vector lanes"
        )
        name = f"`{loop.var}`" if loop.var else "a loop"
        return f"{name} runs {trips} times, {room}"
    return ""


def per_level_reason(chain: list[Loop], analysis: FileAnalysis) -> str:
    """Why a perfect nest takes a pragma per level, or "" when it should collapse."""
    if len(chain) < 2 or short_level(chain, analysis):
        return ""
    return (
        "a perfect nest takes a pragma per level, as experts write it: the outer "
        "loop fills the gangs, the inner one the vector lanes; `collapse` pays only "
        "when a trip count is known too small to fill its level"
    )
