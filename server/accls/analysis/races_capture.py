"""Subscripts from an `atomic capture` counter: `k = next++;` then `buf[k]`.

Each capture of a shared counter stepped by a constant returns its own value, so
`buf[k]` in one iteration is never `buf[k]` of another: one element per capture.
`buf[k - 1]` is the element another iteration captured: when the loop runs
enough iterations, two of them meet there.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from accls.analysis.mhp_constructs import contains, first_word
from accls.analysis.model import Dependence
from accls.analysis.races_index import loop_range
from accls.frontend import Loop, Ref, SourceFile, Span

__all__ = ["captured_apart", "captured_neighbour"]


@dataclass(frozen=True, slots=True)
class _Capture:
    var: str  # the local that takes the counter's value: `k`
    counter: str  # the shared counter: `next`
    step: int  # what one capture adds to the counter
    at: int  # the byte where the capture statement starts
    line: int


def _top_level(ref: Ref, loop: Loop, source: SourceFile) -> bool:
    """True when `ref` runs once in every iteration: no inner loop, no branch."""
    if ref.loops != (loop.id,):
        return False
    at = ref.span.start_byte
    return not any(
        loop.body.start_byte <= b.span.start_byte
        and b.span != loop.body
        and b.span.start_byte <= at < b.span.end_byte
        for b in source.branches
    )


def _capture(
    var: str, loop: Loop, source: SourceFile, private: Collection[str]
) -> _Capture | None:
    """The one capture `var = c++` of the loop, once per iteration, when it is one.

    `var` is declared in the loop body and written only there; the counter `c`
    is shared (not private: a private counter repeats its values across
    threads), written only by that atomic step.
    """
    if var not in {v.name for v in loop.locals}:
        return None
    writes = [r for r in loop.refs if r.name == var and r.is_write]
    if len(writes) != 1 or writes[0].atomic != "omp" or writes[0].subscripts:
        return None
    store = writes[0]
    if not _top_level(store, loop, source):
        return None
    line = store.span.line
    # the step of the same capture: on the statement's line, or in the block
    # form's braces, `{ k = next; next += 1; }` over several lines
    block = next(
        (
            c
            for c in source.constructs
            if first_word(c) == "atomic" and contains(c, store.span.start_byte)
        ),
        None,
    )
    steps = [
        r
        for r in loop.refs
        if r.is_write
        and r.atomic == "omp"
        and r.advance is not None
        and (
            r.span.line == line if block is None else contains(block, r.span.start_byte)
        )
        and r.name != var
        and not r.subscripts
    ]
    if len(steps) != 1 or steps[0].advance is None or not steps[0].advance.amount:
        return None
    counter = steps[0].name
    if counter in private or counter in {v.name for v in loop.locals}:
        return None
    fn = source.function(loop.function) if loop.function else None
    if fn is None:
        return None
    # any other write in the region (`next = 0` by another thread) could repeat
    # a value; writes outside it run before or after the loop
    around = [loop.span, *(region.span for region in loop.regions)]
    start = min(s.start_byte for s in around)
    end = max(s.end_byte for s in around)
    if any(
        r.name == counter and r.is_write and start <= r.span.start_byte < end
        for r in fn.refs
        if r.span != steps[0].span
    ):
        return None
    return _Capture(var, counter, steps[0].advance.amount, store.span.start_byte, line)


def _offset(ref: Ref, capture: _Capture) -> int | None:
    """`c` of a one-dimensional subscript `k + c` on the captured `k`."""
    if len(ref.subscripts) != 1:
        return None
    poly = ref.subscripts[0].poly
    if poly is None or poly.names() != {capture.var} or poly.coeff(capture.var) != 1:
        return None
    if not poly.is_affine:
        return None
    return poly.constant


def _pair(
    dep: Dependence,
    refs: Mapping[Span, Ref],
    loop: Loop,
    source: SourceFile,
    private: Collection[str],
) -> tuple[_Capture, Ref, Ref, int, int] | None:
    left, right = refs.get(dep.source), refs.get(dep.sink)
    if left is None or right is None or not left.subscripts or loop.var is None:
        return None
    poly = left.subscripts[0].poly
    names = poly.names() if poly is not None and len(left.subscripts) == 1 else set()
    if len(names) != 1:
        return None
    capture = _capture(next(iter(names)), loop, source, private)
    if capture is None:
        return None
    first, second = _offset(left, capture), _offset(right, capture)
    if first is None or second is None:
        return None
    if min(left.span.start_byte, right.span.start_byte) < capture.at:
        return None  # read before this iteration's capture
    return capture, left, right, first, second


def captured_apart(
    dep: Dependence,
    refs: Mapping[Span, Ref],
    loop: Loop,
    source: SourceFile,
    private: Collection[str],
) -> bool:
    """True for `buf[k + c]` on both sides, `k` captured once per iteration.

    Two iterations capture two values: they never meet at one element.
    """
    found = _pair(dep, refs, loop, source, private)
    return found is not None and found[3] == found[4]


def captured_neighbour(
    dep: Dependence,
    refs: Mapping[Span, Ref],
    loop: Loop,
    source: SourceFile,
    private: Collection[str],
) -> str:
    """Why two iterations surely meet at `buf[k]` and `buf[k - 1]`; "" when unsure.

    The counter's values are consecutive steps, one per iteration: the iteration
    that captured `v + d` reaches the element the one that captured `v` wrote,
    when the loop runs more than `d / step` iterations and both references run
    in every iteration.
    """
    found = _pair(dep, refs, loop, source, private)
    if found is None:
        return ""
    capture, left, right, first, second = found
    apart = abs(first - second)
    if apart == 0 or apart % abs(capture.step):
        return ""
    if not (left.is_write or right.is_write):
        return ""
    if not (_top_level(left, loop, source) and _top_level(right, loop, source)):
        return ""
    span = loop_range(loop, source)
    if span is None or len(span) <= apart // abs(capture.step):
        return ""
    return (
        f"`{capture.var}` takes a new value of `{capture.counter}` in each iteration "
        f"(atomic capture, line {capture.line}), "
        f"so `{left.render()}` (line {left.span.line}) and `{right.render()}` "
        f"(line {right.span.line}) of two iterations {apart // abs(capture.step)} "
        "capture(s) apart touch one element"
    )
