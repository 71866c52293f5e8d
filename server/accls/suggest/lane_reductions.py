"""Reductions that each vector lane runs alone: `gang`, `vector`, then `loop seq`.

`acc_level` gives a loop under a `gang` loop the `worker` level when parallel
loops lie below it, and those the vector lanes. When every parallel loop below
is parallel only as a scalar reduction (the dot product of a matrix product,
the weighted sum of a filter, `s += a[i][j][k]`), GPU experts map the nest
the other way: the two outer loops fill the gangs and the vector lanes, and
each lane runs its own sum sequentially (`loop seq`), with no tree reduction
across lanes per element and the lanes walking the middle loop. Of the dev
sources' nests with two parallel loops above a reduction loop, the experts
leave the reduction sequential in all of them (`loop seq` on 19 loops of the
training materials' filters, no directive in the conformance suite's tiled
triple nests); a reduction right below the only parallel loop (a dot product
per row) keeps `vector`. A middle loop of a few iterations would leave most
lanes idle, so it keeps `worker`.
"""

from __future__ import annotations

from accls.analysis import FileAnalysis, LoopFacts, ScalarClass
from accls.frontend import Loop
from accls.suggest.levels import seq_pragma, seq_ready
from accls.suggest.nest_shape import few_iterations
from accls.suggest.options import SuggestOptions
from accls.suggest.suggestion import Suggestion

__all__ = ["lane_reason", "lane_reductions", "lane_seq"]


def _reduced(facts: LoopFacts) -> list[str]:
    return [s.name for s in facts.scalars if s.cls is ScalarClass.REDUCTION]


def lane_reductions(loop: Loop, below: list[Loop], analysis: FileAnalysis) -> bool:
    """`below`, the parallel loops under `loop`, are reductions each lane runs alone."""
    return (
        bool(below)
        and few_iterations(loop, {}) is None
        and all(_reduced(analysis.of(b)) for b in below)
    )


def lane_reason(loop: Loop, below: list[Loop]) -> str:
    """Why `loop` takes `vector` over the reduction loops `below`."""
    names = ", ".join(f"`{b.var}`" for b in below if b.var) or "the inner loops"
    return (
        f"levels: `{loop.var}` takes `vector`, the level below the gangs: the "
        f"parallel loops inside it ({names}) are reductions, which each lane runs "
        "on its own (`loop seq`) rather than split every sum across the lanes"
    )


def lane_seq(facts: LoopFacts, opts: SuggestOptions) -> Suggestion | None:
    """`loop seq` for a reduction loop below the vector level, if it is canonical."""
    loop = facts.loop
    if not seq_ready(loop, opts):
        return None
    names = ", ".join(f"`{n}`" for n in _reduced(facts))
    return seq_pragma(
        facts,
        opts,
        f"loop seq: the loops above fill the gangs and the vector lanes; each "
        f"lane runs this reduction of {names} on its own, and `seq` keeps the "
        "compiler from splitting it further",
    )
