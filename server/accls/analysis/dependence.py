"""Exact array dependence analysis of a loop nest, with isl and safe fallbacks.

Distances are measured along each loop's own order, in units of its variable:
a decreasing loop that reads `a[i+1]` after writing `a[i]` has distance 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from accls.analysis.budget import Budget, TooLarge
from accls.analysis.delinearize import Model, base_name
from accls.analysis.dependence_exact import pair_dependences
from accls.analysis.dependence_pair import Pair, dep_kind
from accls.analysis.model import Dependence
from accls.analysis.nest_views import NestViews, View, nest_views
from accls.frontend import Loop

__all__ = ["nest_dependences"]


def _common(left: tuple[Loop, ...], right: tuple[Loop, ...]) -> tuple[Loop, ...]:
    count = 0
    while count < min(len(left), len(right)) and left[count].id == right[count].id:
        count += 1
    return left[:count]


def _staleness(
    nest: NestViews, array: str, views: tuple[View, View], common: tuple[Loop, ...]
) -> tuple[int, str]:
    """How many leading common levels see a subscript symbol or the pointer change."""
    writes: list[frozenset[int]] = []
    why = ""
    for view in views:
        if isinstance(view.subscripts, Model) and view.subscripts.changing:
            why = why or view.subscripts.note
            writes.extend(nest.loops_writing(n) for n in view.subscripts.changing)
    assigned = nest.loops_assigning(array)
    if assigned:
        why = why or _reassigned(nest, array)
        writes.append(assigned)
    if any(not ids for ids in writes):
        return len(common), why  # written outside any known loop: trust nothing
    stale = 0
    for level, loop in enumerate(common):
        if any(loop.id in ids for ids in writes):
            stale = level + 1
    return stale, why


def _reassigned(nest: NestViews, array: str) -> str:
    """Why the memory `array` names may move: the pointer or the path's base is set."""
    base = base_name(array)
    if array in nest.pointer_writes or base == array:
        return f"`{array}` is reassigned inside the loop"
    # `bp = &blocks[k[in]]` in each iteration, or `build(&s)` before `s.v[i]`:
    # the pointer the path reads may differ, and nothing proves it points apart.
    return (
        f"`{base}` changes inside the loop, so `{array}` may be a different "
        "pointer in each iteration, and nothing proves two iterations reach "
        "different memory through it"
    )


_Shape = tuple[object, ...]
"""What the dependence test of a reference depends on, its own identity aside."""


def _shape(view: View) -> _Shape:
    frame = view.frame
    why = view.subscripts if isinstance(view.subscripts, str) else ""
    return (view.texts, tuple(loop.id for loop in frame.loops), frame.free, why)


@dataclass(frozen=True, slots=True)
class _Template:
    """A dependence of a shape pair, without the references it joins."""

    forward: bool  # from the earlier reference in the text to the later
    direction: tuple[str, ...]
    distance: tuple[int | None, ...]
    carrier: int | None
    exact: bool
    reason: str


def _templates(nest: NestViews, array: str, left: View, right: View) -> list[_Template]:
    """The dependences between two references, as templates for their shapes."""
    common = _common(left.frame.loops, right.frame.loops)
    unordered = frozenset(
        k for k, loop in enumerate(common) if loop.id in nest.unordered
    )
    stale, why = _staleness(nest, array, (left, right), common)
    pair = Pair(array, left, right, common, unordered, stale, why)
    return [
        _Template(
            dep.source is left.ref.span,
            dep.direction,
            dep.distance,
            dep.carrier,
            dep.exact,
            dep.reason,
        )
        for dep in pair_dependences(pair)
    ]


class _Counter:
    """Work done on one nest against its budget."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.tests = 0
        self.dependences = 0

    def test(self) -> None:
        self.tests += 1
        if self.tests > self.budget.tests:
            raise TooLarge("subscript pairs to test", self.tests, self.budget.tests)

    def record(self, count: int) -> None:
        self.dependences += count
        if self.dependences > self.budget.dependences:
            raise TooLarge("dependences", self.dependences, self.budget.dependences)


def _array_dependences(
    nest: NestViews,
    array: str,
    views: tuple[View, ...],
    counter: _Counter,
    independent: bool,
) -> list[Dependence]:
    """The dependences among the references of one array, in pair order.

    References of one shape (same subscripts, same loops) meet every other
    reference alike: each ordered pair of shapes is tested once, and its
    answer is copied to the pairs of references that hold those shapes.
    """
    groups: dict[_Shape, list[int]] = {}
    for at, view in enumerate(views):
        groups.setdefault(_shape(view), []).append(at)
    members = list(groups.values())
    writes = {at for at, view in enumerate(views) if view.ref.is_write}
    found: list[tuple[int, int, int, Dependence]] = []

    def shaped(first: int, second: int) -> list[_Template]:
        counter.test()
        out = _templates(nest, array, views[first], views[second])
        return [t for t in out if independent or t.carrier is not None]

    def emit(first: int, second: int, templates: list[_Template]) -> None:
        left, right = views[first], views[second]
        if not templates or not (left.ref.is_write or right.ref.is_write):
            return
        counter.record(len(templates))
        common = _common(left.frame.loops, right.frame.loops)
        loops = tuple(loop.id for loop in common)
        for k, t in enumerate(templates):
            early, late = (left, right) if t.forward else (right, left)
            dep = Dependence(
                array=array,
                kind=dep_kind(early.ref, late.ref),
                source=early.ref.span,
                sink=late.ref.span,
                loops=loops,
                direction=t.direction,
                distance=t.distance,
                carrier=t.carrier,
                exact=t.exact,
                reason=t.reason,
            )
            found.append((first, second, k, dep))

    for a, group_a in enumerate(members):
        for group_b in members[a:]:
            if not (writes.intersection(group_a) or writes.intersection(group_b)):
                continue
            if group_a is group_b:
                alone = shaped(group_a[0], group_a[0])
                for at in group_a if alone else ():
                    emit(at, at, alone)
                if len(group_a) < 2:
                    continue
                together = shaped(group_a[0], group_a[1])
                for pos, i in enumerate(group_a if together else ()):
                    for j in group_a[pos + 1 :]:
                        emit(i, j, together)
                continue
            # Each order of the two shapes is tested once, on one pair in it.
            ahead = shaped(group_a[0], group_b[-1]) if group_a[0] < group_b[-1] else []
            behind = shaped(group_b[0], group_a[-1]) if group_b[0] < group_a[-1] else []
            if not (ahead or behind):
                continue
            for i in group_a:
                for j in group_b:
                    if i < j:
                        emit(i, j, ahead)
                    else:
                        emit(j, i, behind)
    found.sort(key=lambda item: item[:3])
    return [item[3] for item in found]


def nest_dependences(
    root: Loop,
    budget: Budget | None = None,
    independent: bool = True,
    known: NestViews | None = None,
) -> tuple[Dependence, ...]:
    """Every array dependence inside the loop nest `root`.

    One per ordered pair of references and carrying level, plus loop-independent
    ones (carrier None) between distinct references in the same iteration, unless
    `independent` is False. Raises TooLarge past the budget. `known` is
    `nest_views(root)`, when the caller has it already.
    """
    limits = budget or Budget()
    if len(root.refs) > limits.references:
        raise TooLarge("references", len(root.refs), limits.references)
    nest = known if known is not None else nest_views(root)
    counter = _Counter(limits)
    out: list[Dependence] = []
    for array, views in nest.arrays.items():
        out.extend(_array_dependences(nest, array, views, counter, independent))
    return tuple(out)
