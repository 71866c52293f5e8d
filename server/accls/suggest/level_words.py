"""The level words an expert leaves to the compiler: a perfect two-level nest.

`acc_level` names a level for every loop of a nest: `gang` on the outer loop,
`worker` and `vector` below. Whether experts spell those words follows the
nest's shape. Of the dev sources' top-level OpenACC nests with two annotated
parallel levels, the perfectly nested ones are bare (93 of 104: `parallel loop`
over a bare `loop`), and the compiler then gives the outer loop the gangs and
the inner one the vector lanes, the mapping `gang`/`vector` spells out: the same
code, as fast. An imperfect nest, with statements between the levels, is named
(82 of 84: `gang` over `worker` or `vector`, or a bare outer loop over
`vector`), so it keeps its words, as does a deeper nest (`worker` below), a
`kernels` construct (whose bare loops are `auto`, not independent) and a GPU
tuning (whose `vector_length`/`num_workers` describe the named levels).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from accls.frontend import Loop
from accls.suggest.pragma import Dialect, Pragma
from accls.suggest.suggestion import Suggestion

__all__ = ["expert_level_words"]

_TUNING = frozenset({"vector_length", "num_workers", "num_gangs"})
_NOTE = (
    "no level words: for a perfect two-level nest the compiler gives the outer "
    "loop the gangs and the inner one the vector lanes, as experts write it"
)


def _members(top: Suggestion, found: Sequence[Suggestion]) -> list[int]:
    """Indices of the inner suggestions that run inside `top`'s construct."""
    span = top.loop.span
    return [
        k
        for k, s in enumerate(found)
        if s.inner
        and s.pragma is not None
        and span.start_byte < s.loop.span.start_byte < span.end_byte
    ]


def _perfect_to(top: Loop, inner: Loop) -> bool:
    """No statement stands between `top` and `inner`: each loop between is perfect."""
    cur = top
    while cur.perfect and cur.children:
        cur = cur.children[0]
        if cur.id == inner.id:
            return True
    return False


def _two_levels(top: Suggestion, inner: list[Suggestion]) -> bool:
    """`top` is a `parallel loop gang` over perfectly nested `vector` loops."""
    pragma = top.pragma
    if (
        pragma is None
        or pragma.dialect is not Dialect.OPENACC
        or pragma.directive != "parallel loop"
        or pragma.clause("gang") is None
        or any(c.name in _TUNING for c in pragma.clauses)
    ):
        return False
    names = [{c.name for c in s.pragma.clauses} for s in inner if s.pragma]
    if any(n & {"gang", "worker"} for n in names):
        return False
    vector = [s.loop for s in inner if s.pragma and s.pragma.clause("vector")]
    return bool(vector) and all(_perfect_to(top.loop, loop) for loop in vector)


def _without(pragma: Pragma, word: str) -> Pragma:
    return replace(pragma, clauses=tuple(c for c in pragma.clauses if c.name != word))


def expert_level_words(found: Sequence[Suggestion]) -> tuple[Suggestion, ...]:
    """`found` with the level words of each perfect two-level nest dropped."""
    out = list(found)
    for k, top in enumerate(found):
        if top.inner or top.existing is not None or top.pragma is None:
            continue
        members = _members(top, found)
        if not _two_levels(top, [found[m] for m in members]):
            continue
        reasons = (*top.reasons, _NOTE)
        out[k] = replace(top, pragma=_without(top.pragma, "gang"), reasons=reasons)
        for m in members:
            inner = found[m]
            if inner.pragma is not None and inner.pragma.clause("vector") is not None:
                out[m] = replace(inner, pragma=_without(inner.pragma, "vector"))
    return tuple(out)
