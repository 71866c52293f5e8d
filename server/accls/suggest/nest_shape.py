"""The shape of a loop nest: what `collapse` may fold, imbalance, tiny trip counts."""

from __future__ import annotations

import itertools
import re

from accls.analysis import FileAnalysis
from accls.analysis.cost_features import constant_macros
from accls.frontend import Loop
from accls.frontend.exprs import expression_poly

__all__ = [
    "MAX_COLLAPSE",
    "Ranges",
    "bound_names",
    "collapse_chain",
    "collapse_stop",
    "cpu_collapse",
    "few_iterations",
    "imbalance",
    "schedule_reason",
    "with_range",
]

MAX_COLLAPSE = 3
"""Deeper collapses add index arithmetic and rarely more parallelism."""


_NAME = re.compile(r"[A-Za-z_]\w*")


def bound_names(loop: Loop) -> frozenset[str]:
    """Every name in the loop's bounds, limits and step, as modelled and as written.

    The texts too, not only the `Poly` forms: a bound the front end cannot model
    (`j < count[i]`) has no `Poly`, yet still depends on `i`.
    """
    names = set(_NAME.findall(f"{loop.lower_text} {loop.upper_text} {loop.step_text}"))
    for poly in (loop.lower, loop.upper, *(lim.poly for lim in loop.limits)):
        if poly is not None:
            names |= poly.names()
    return frozenset(names)


def _fold_stop(chain: list[Loop], analysis: FileAnalysis, limit: int | None) -> str:
    """Why `collapse` cannot fold the next loop into `chain`, or "" when it can."""
    cur = chain[-1]
    if not cur.children:
        return "there is no loop below to fold"
    if not cur.perfect:
        if len(chain) == 1:
            return (
                "the nest is imperfect (statements between the loops), so "
                "`collapse` cannot fold it"
            )
        return "the loops below the collapsed ones are not perfectly nested"
    if limit is not None and len(chain) >= limit:
        if limit == 1:
            # Only the outermost and the vector level fold: a worker loop
            # keeps one loop, and the loops below it fill the vector lanes.
            return (
                "a worker loop folds no other loop: those below fill the vector level"
            )
        return f"`collapse` folds at most {limit} loops on one level"
    child = cur.children[0]
    facts = analysis.of(child)
    name = f"`{child.var}`" if child.var else "the inner loop"
    if not facts.parallel:
        return f"the inner loop {name} is not independent"
    if bound_names(child) & {c.var for c in chain if c.var}:
        return f"the bounds of the inner loop {name} depend on an outer loop's variable"
    if facts.atomics:
        return f"the inner loop {name} needs atomic updates"
    if child.pragmas:
        return f"the inner loop {name} has a pragma of its own"
    return ""


def collapse_chain(
    loop: Loop, analysis: FileAnalysis, limit: int | None = MAX_COLLAPSE
) -> list[Loop]:
    """`loop` and the perfectly nested parallel loops `collapse` may fold into it.

    At most `limit` loops; `None` folds every one it may (the vector level, the
    last one: a loop it leaves out runs sequentially in each lane).
    """
    chain = [loop]
    while not _fold_stop(chain, analysis, limit):
        chain.append(chain[-1].children[0])
    return chain


def collapse_stop(chain: list[Loop], analysis: FileAnalysis, limit: int | None) -> str:
    """Why a collapse chain ends where it does (an OpenACC `!=` test included)."""
    why = _fold_stop(chain, analysis, limit)
    cur = chain[-1]
    if not why and cur.children and cur.children[0].cond_op == "!=":
        return "the inner loop tests with `!=`, which OpenACC compilers reject"
    return why or "the loops below take the next level"


CPU_COLLAPSE_BELOW = 64
"""A CPU `collapse` folds the next loop in only while the loops folded so far have
fewer iterations than this: fewer than a node's threads (or too few to balance
them). Past it the outer loop alone feeds every thread, and `collapse` only adds
index arithmetic and takes the inner loop from the vectorizer."""


def cpu_collapse(chain: list[Loop], analysis: FileAnalysis) -> list[Loop]:
    """The part of a collapse chain worth folding for CPU threads.

    Experts collapse a CPU nest only when its outer loop is short (a few channels
    or tiles); a loop of unknown or large trip count is shared out alone.
    """
    values = constant_macros(analysis.source)
    kept = chain[:1]
    product = 1
    for outer, inner in itertools.pairwise(chain):
        trip = expression_poly(outer.trip_count) if outer.trip_count else None
        trip = trip.substitute(values) if trip is not None else None
        if trip is None or not trip.is_constant:
            break
        product *= max(trip.constant, 0)
        if product >= CPU_COLLAPSE_BELOW:
            break
        kept.append(inner)
    return kept


def _fixed_width(inner: Loop, outer: set[str]) -> bool:
    """True when both bounds move with the outer variable by the same amount."""
    if inner.limits or not inner.step or inner.lower is None or inner.upper is None:
        return False
    return not (inner.upper - inner.lower).names() & outer


def imbalance(loop: Loop) -> str:
    """How inner trip counts vary with the outer variable, or "" when they do not.

    "triangular": a bound is affine in it (`j < i`); "data": a bound reads memory
    the outer variable indexes (`j < row[i + 1]`, a sparse row's length).
    """
    outer = {loop.var} if loop.var else set()
    kind = ""
    for inner in loop.walk()[1:]:
        if not bound_names(inner) & outer:
            continue
        polys = (inner.lower, inner.upper, *(lim.poly for lim in inner.limits))
        if _fixed_width(inner, outer):
            continue  # `j = 64*i; j < 64*i + 64`: it moves, its count does not
        if any(p is not None and p.names() & outer for p in polys):
            kind = kind or "triangular"
        else:
            return "data"
    return kind


def schedule_reason(loop: Loop, uneven: str) -> str:
    """Why `schedule(dynamic)`, for an `imbalance` of `uneven`."""
    head = "schedule(dynamic): inner trip counts depend on the outer loop variable "
    if uneven == "triangular":
        return head + "(a triangular iteration space)"
    bounds = next(
        f"{inner.lower_text} .. {inner.upper_text}"
        for inner in loop.walk()[1:]
        if loop.var in bound_names(inner)
    )
    return (
        head + f"through data (`{bounds}`): iterations do uneven work, handed out "
        "as threads free up"
    )


_FEW_ITERATIONS = 16
"""A nested loop with fewer iterations than this gets no parallel region of its own."""


# name -> (least, greatest) value of an enclosing loop's variable.
Ranges = dict[str, tuple[int, int]]


def few_iterations(loop: Loop, ranges: Ranges) -> int | None:
    """At most how many times the loop runs, when that is below `_FEW_ITERATIONS`.

    Either a constant trip count, or affine bounds in the variables of enclosing
    loops with constant bounds (`for (j = i; j > 0; j--)` inside `i < 12`).
    """
    count = (loop.trip_count or "").strip()
    if count.isdigit():
        return int(count) if int(count) < _FEW_ITERATIONS else None
    if loop.lower is None or loop.upper is None or not loop.step:
        return None
    span = loop.upper - loop.lower if loop.step > 0 else loop.lower - loop.upper
    if not span.is_affine or not span.names() <= ranges.keys():
        return None
    most = span.constant
    for name in span.names():
        coeff = span.coeff(name)
        least, greatest = ranges[name]
        most += max(coeff * least, coeff * greatest)
    most += 1 if loop.cond_op in ("<=", ">=") else 0
    most = max(0, -(-most // abs(loop.step)))
    return most if most < _FEW_ITERATIONS else None


def with_range(loop: Loop, ranges: Ranges) -> Ranges:
    """`ranges` plus the loop's own variable, when its bounds are constants."""
    if (
        loop.var is None
        or loop.lower is None
        or loop.upper is None
        or not (loop.lower.is_constant and loop.upper.is_constant)
    ):
        return ranges
    ends = (loop.lower.constant, loop.upper.constant)
    return {**ranges, loop.var: (min(ends), max(ends))}
