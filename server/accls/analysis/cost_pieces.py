"""Loops that compute one item of a larger loop: the parallelism is one level up.

- An *inner reduction*: a reduction loop nested in a serial loop of its function
  that walks data (the outer variable indexes the reduction's arrays or sets its
  bounds), and whose own trip count is not a constant: a dot product per row
  (`for (j...) { sum = 0; for (k...) sum += w[k][j] * x[k]; y[j] = f(sum); }`).
  A pragma there opens a region and combines partial sums on every outer
  iteration, for one row's work; experts share out the rows or leave it serial.
- A *per-item function*: every call of the loop's function in the file (and the
  program index, when there is one, finds none in other files) sits in a loop of
  its caller that walks data, one call per item
  (`for (i...) d = dist(pt[i], centre, n);`), directly or through functions that
  are themselves only called so. A region per call costs more than the item.

A loop whose enclosing loop does not use its variable on data (a time step, a
repeat count: `for (it...) step(a, n);`) is not such a piece: its loops hold the
whole data set on every step, and experts share those out. Nor is one whose
enclosing loop runs a known few times (`for (m = 0; m < 12; m++)` over materials):
that loop cannot feed the threads, the one inside it can.
"""

from __future__ import annotations

import re

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost_context import caller_lines
from accls.analysis.cost_features import constant_macros
from accls.analysis.model import ScalarClass
from accls.frontend import Loop, Span
from accls.frontend.exprs import expression_poly

__all__ = ["piece_reason"]

SHORT_OUTER = 64
"""An outer loop of fewer known iterations than this (twelve materials, three
channels) cannot feed a node's threads: the loop inside it is the one to share."""
_WORD = re.compile(r"[A-Za-z_]\w*")


def _uses_on_data(outer: Loop, inner_refs: Loop | None, span: Span | None) -> bool:
    """True when `outer`'s variable indexes data or feeds a call in the given part.

    The part is `inner_refs` (a nested loop: its subscripts and bounds) or the call
    at `span` (its arguments, and the subscripts of `outer` that compute them).
    """
    var = outer.var
    if var is None:
        return False
    if inner_refs is not None:
        bounds = f"{inner_refs.lower_text} {inner_refs.upper_text}"
        if var in _WORD.findall(bounds):
            return True
        return any(
            s.poly is not None and var in s.poly.names()
            for r in inner_refs.refs
            for s in r.subscripts
        )
    for call in outer.calls:
        if span is not None and call.span.start_byte != span.start_byte:
            continue
        if any(var in _WORD.findall(arg) for arg in call.args):
            return True
    # The item may come through a local the body computes from the variable
    # (`IE = grad[cell]; f(IE)`): the variable indexes data in the body itself.
    return any(
        s.poly is not None and var in s.poly.names()
        for r in outer.refs
        for s in r.subscripts
    )


def _short(analysis: FileAnalysis, outer: Loop) -> bool:
    """True when `outer` runs a known few times: too few to share out itself."""
    trip = expression_poly(outer.trip_count) if outer.trip_count else None
    if trip is None:
        return False
    trip = trip.substitute(constant_macros(analysis.source))
    return trip.is_constant and trip.constant < SHORT_OUTER


def _inner_reduction(analysis: FileAnalysis, loop: Loop) -> str:
    facts = analysis.of(loop)
    reductions = [s.name for s in facts.scalars if s.cls is ScalarClass.REDUCTION]
    count = (loop.trip_count or "").strip()
    if not reductions or count.isdigit():
        return ""
    for outer in analysis.source.loops():
        if outer.id == loop.id or outer.function != loop.function:
            continue
        if not outer.span.start_byte < loop.span.start_byte < outer.span.end_byte:
            continue
        if analysis.of(outer).parallel or _short(analysis, outer):
            continue
        if not _uses_on_data(outer, loop, None):
            continue
        names = ", ".join(f"`{n}`" for n in sorted(set(reductions)))
        return (
            f"inner reduction: {names} is summed once per iteration of the loop at "
            f"line {outer.line}, which walks the data with `{outer.var}`: a region "
            "and a combine per outer iteration cost more than one row's work"
        )
    return ""


def _data_loop_around(analysis: FileAnalysis, span: Span) -> int | None:
    """The line of the innermost serial caller loop around `span` that walks data."""
    found: Loop | None = None
    for outer in analysis.source.loops():
        if outer.span.start_byte <= span.start_byte < outer.span.end_byte:
            found = outer
    if found is None or _short(analysis, found):
        return None
    if not _uses_on_data(found, None, span):
        return None
    return found.line


def _item_callers(analysis: FileAnalysis, name: str, seen: frozenset[str]) -> list[int]:
    """Lines of the data loops around every call of `name`; [] if one is not."""
    return caller_lines(analysis, name, seen, _data_loop_around, _calls_shown)


def _calls_shown(analysis: FileAnalysis, name: str) -> bool:
    """False when other files call `name` too, in ways this file does not show."""
    fn = analysis.source.function(name)
    program = analysis.program
    called_elsewhere = (
        program is not None
        and program.whole
        and program.complete
        and name in program.called
    )
    return fn is not None and not (called_elsewhere and not fn.static)


def _per_item(analysis: FileAnalysis, loop: Loop) -> str:
    name = loop.function
    if name is None or name == "main":
        return ""
    lines = _item_callers(analysis, name, frozenset())
    if not lines:
        return ""
    where = ", ".join(str(n) for n in sorted(set(lines)))
    return (
        f"per-item function: `{name}()` is called once per item of the loop at "
        f"line {where}: share out that loop; a region per call costs more than "
        "the item"
    )


def piece_reason(analysis: FileAnalysis, loop: Loop) -> str:
    """Why `loop` computes one item of a larger loop, or ""."""
    return _inner_reduction(analysis, loop) or _per_item(analysis, loop)
