"""Input-bound passes: a light loop over data that a loop beside it reads in.

`for (i = 0; i < n; i++) fscanf(f, "%lf", buf + i);  for (i = 1; i < n; i++)
buf[i] /= x0 + i * dr;`: parsing a value from a file costs some hundreds of
nanoseconds (INPUT_UNITS), which no thread can share, while the pass over the
values costs a few units each. Sharing the pass out saves a few percent of the
function's time at best, and pays a region for it; experts leave such passes (a
table read at start-up and converted in place) serial. The rule needs all of:

- another loop of the same function, neither inside `loop` nor around it, reads
  input with the C library (`fscanf`, `fread`, `fgets`, ...) in its body;
- that loop's trip count and `loop`'s differ by a constant: the same elements,
  give or take a boundary (`0 .. n` and `1 .. n`);
- one iteration of `loop` costs at most INPUT_UNITS / SHARE work units, its whole
  nest included, so the reads hold SHARE times its work or more.

A pass that computes much per element (a kernel over data read from a file) keeps
its pragma, and so does one over other sizes than those the file gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from accls.analysis.analyze import FileAnalysis
from accls.frontend import Effect, Loop, Poly
from accls.frontend.exprs import expression_poly
from accls.frontend.library import library_function

__all__ = ["INPUT_UNITS", "input_bound_reason"]

INPUT_UNITS = 200
"""Work units of one formatted or buffered read of a value (some hundred ns)."""

SHARE = 8
"""The reads must hold this many times the pass's work per element."""

_READS = frozenset(
    {
        "fscanf",
        "scanf",
        "vfscanf",
        "fread",
        "fgets",
        "fgetc",
        "getc",
        "getchar",
        "getline",
        "getdelim",
        "read",
    }
)

Work = Callable[[Loop, bool], Poly | None]  # (loop, one iteration only) -> units


def _reads(loop: Loop) -> str:
    """The name of an input call in `loop`'s body, or ""."""
    for call in loop.calls:
        entry = library_function(call.name)
        if call.name in _READS and entry is not None and entry.effect is Effect.IO:
            return call.name
    return ""


def _trip(loop: Loop, values: Mapping[str, Poly]) -> Poly | None:
    poly = expression_poly(loop.trip_count) if loop.trip_count else None
    return poly.substitute(dict(values)) if poly is not None else None


def _same_elements(read: Poly, trip: Poly) -> bool:
    """True when the reads cover `trip`'s elements, give or take a boundary."""
    if trip.is_constant:
        return read.is_constant and read.constant >= trip.constant
    return (read - trip).is_constant


def input_bound_reason(
    analysis: FileAnalysis, loop: Loop, work: Work, values: Mapping[str, Poly]
) -> str:
    """Why `loop` is a light pass beside a loop reading its elements in, or ""."""
    per = work(loop, True)
    if per is None or not per.is_constant or per.constant > INPUT_UNITS // SHARE:
        return ""
    trip = _trip(loop, values)
    if trip is None or _reads(loop):
        return ""
    start, end = loop.span.start_byte, loop.span.end_byte
    for other in analysis.source.loops():
        if other.function != loop.function or other.id == loop.id:
            continue
        if other.span.start_byte < end and start < other.span.end_byte:
            continue  # inside `loop`, or around it
        name = _reads(other)
        found = _trip(other, values) if name else None
        if found is None or not _same_elements(found, trip):
            continue
        return (
            f"input-bound: the loop at line {other.line} reads the same elements "
            f"with `{name}()`, hundreds of units each, where this loop spends "
            f"{per.constant}; sharing it out saves a few percent at best"
        )
    return ""
