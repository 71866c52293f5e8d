"""A static cost model: the work of one execution of a loop, and whether it pays.

A parallel pragma pays when the loop's work outweighs the region it opens. Work is
counted in *units* of about a nanosecond on a current CPU core: one unit per memory
access, per floating-point `+ - * /` and per iteration's loop control, and a weight per
call: a function of the file weighs what its own loops do with the call's arguments, a
library function a fixed amount, an unknown one more. Trip counts come from the loop
bounds, with the integer values the translation unit fixes (`#define N 4000`, `-D`
flags) and those its function fixes (constant locals, constants every caller passes:
cost_locals, or the largest across files: cost_callers), and the extents of the arrays a
loop indexes bound an open one (cost_bounds). A loop is *unprofitable* only when its
whole work is known (or bounded) and below what opening the region costs, or too few
known iterations share it out; when its function is only ever called from inside
parallel code (the pragma would open a nested region on every call) or never called at
all; or when its shape leaves nothing worth a region: a segment, setup, repeat,
atomic-bound, light or stack-table fill loop, a one-off pass, a light check after the
loop that repeats the kernels or a light pass beside the reads of its data, or one item
of a larger loop (cost_segments, *_shapes, *_atomics, *_light, *_table, *_once,
*_verify, *_input, *_pieces). Otherwise unknown sizes never make a loop unprofitable.
"""

from __future__ import annotations

from collections.abc import Callable

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost_amdahl import serial_share_reason
from accls.analysis.cost_atomics import atomic_reason
from accls.analysis.cost_bounds import (
    extent_cap,
    few_iterations_reason,
    outer_range_reason,
)
from accls.analysis.cost_callers import fixed_sizes
from accls.analysis.cost_context import nested_context, unused_context
from accls.analysis.cost_features import (
    Estimate,
    constant_macros,
    fmt_units,
    loop_features,
    size_threshold,
)
from accls.analysis.cost_input import input_bound_reason
from accls.analysis.cost_once import once_reason
from accls.analysis.cost_pieces import piece_reason
from accls.analysis.cost_segments import segment_reason
from accls.analysis.cost_setup_pass import light_pass_reason
from accls.analysis.cost_shapes import shape_reason
from accls.analysis.cost_stack import stack_reason
from accls.analysis.cost_table import table_reason
from accls.analysis.cost_verify import verify_reason
from accls.analysis.cost_weights import DEFAULT_SIZE, LoopFeatures, load_weights
from accls.frontend import Loop, Poly, SourceFile, Span, Var
from accls.frontend.arith import float_ops
from accls.frontend.exprs import expression_poly
from accls.frontend.library import Effect, library_function

__all__ = ["Estimate", "constant_macros", "estimate_loop", "float_names"]

REGION_UNITS = 20_000
"""Work a CPU parallel region must hold to pay for its fork, join and barrier.

About 10-20 microseconds: a region costs a few microseconds on an idle node with a
handful of threads, and much more when another process keeps a core busy.
"""

KERNEL_UNITS = 200_000
"""Work an offloaded kernel must hold to pay for its launch (about 10 microseconds plus
the device's start-up latency), before any data movement."""

KERNEL_ITERATIONS = 1_024
"""Fewer parallel iterations than this leave most of a GPU idle."""

_CALL_UNITS = {Effect.PURE: 20, Effect.MEMORY: 20}
_UNKNOWN_CALL_UNITS = 100  # a function whose body the model cannot see
_CALL_OVERHEAD = 10
_CALL_DEPTH = 4


def float_names(source: SourceFile, loop: Loop) -> frozenset[str]:
    """The names of floating type that `loop` can see (locals, parameters, globals)."""
    macros = dict(source.macros)
    decls: dict[str, Var] = {v.name: v for v in source.globals}
    fn = source.function(loop.function)
    if fn is not None:
        decls |= {v.name: v for v in (*fn.params, *fn.locals)}
    decls |= {v.name: v for inner in loop.walk() for v in inner.locals}
    return frozenset(
        name
        for name, var in decls.items()
        if macros.get(var.type, var.type).split()[-1:] in (["double"], ["float"])
    )


class _Nest:
    """Trip counts of a nest's loops, polynomials in the sizes left open."""

    def __init__(self, loop: Loop, values: dict[str, Poly]) -> None:
        self.loops = {inner.id: inner for inner in loop.walk()}
        self.parents = {c.id: p.id for p in loop.walk() for c in p.children}
        self.values = values
        self.unknown: list[Loop] = []
        self.trips: dict[int, Poly | None] = {}
        nest_vars = {inner.var for inner in loop.walk() if inner.var}
        for inner in loop.walk():
            trip = expression_poly(inner.trip_count) if inner.trip_count else None
            if trip is not None:
                trip = trip.substitute(values)
                # A bound that uses an outer loop's variable (a triangular nest): its
                # sum is not a polynomial here, so it stays unknown, never guessed low.
                if trip.names() & nest_vars:
                    trip = None
            self.trips[inner.id] = trip
            if trip is None:
                self.unknown.append(inner)

    def weight(self, loop_id: int | None) -> Poly:
        """The product of the trip counts from the nest's top down to `loop_id`."""
        out = Poly.const(1)
        while loop_id is not None and loop_id in self.loops:
            trip = self.trips.get(loop_id)
            out = out * (trip if trip is not None else Poly.const(1))
            loop_id = self.parents.get(loop_id)
        return out


def _innermost(loop: Loop, span: Span) -> int | None:
    """The id of the innermost loop of the nest that holds `span`."""
    found: int | None = None
    for inner in loop.walk():
        if inner.span.start_byte <= span.start_byte < inner.span.end_byte:
            found = inner.id
    return found


def _callee_work(
    name: str,
    args: tuple[str, ...],
    source: SourceFile,
    values: dict[str, Poly],
    depth: int,
) -> Poly | None:
    """The work of one call of a function of the file, with its arguments.

    None when some of it is unknown (or the calls nest too deeply).
    """
    fn = source.function(name)
    if fn is None or depth > _CALL_DEPTH or len(args) != len(fn.params):
        return None
    bound = dict(values)
    for param, arg in zip(fn.params, args, strict=True):
        value = expression_poly(arg)
        if value is not None:
            bound[param.name] = value.substitute(values)
    total = Poly.const(_CALL_OVERHEAD)
    for nest in source.nests:
        if nest.function != name:
            continue
        inner = _Nest(nest, bound)
        if inner.unknown:
            return None
        work = _work(nest, source, inner, bound, depth + 1)
        if work is None or work.names() - set(values):
            return None
        total = total + work
    return total


def _call_cost(
    name: str,
    args: tuple[str, ...],
    source: SourceFile,
    values: dict[str, Poly],
    depth: int,
) -> Poly | None:
    """The work of one call: its body's for a function of the file, else a weight."""
    if source.function(name) is not None:
        return _callee_work(name, args, source, values, depth)
    entry = library_function(name)
    units = _CALL_UNITS.get(entry.effect, _UNKNOWN_CALL_UNITS) if entry else None
    return Poly.const(units if units is not None else _UNKNOWN_CALL_UNITS)


def _work(
    loop: Loop,
    source: SourceFile,
    nest: _Nest,
    values: dict[str, Poly],
    depth: int = 0,
    parts: dict[str, Poly] | None = None,
) -> Poly | None:
    """Units of one execution of the nest; None when a callee's work is unknown.

    `parts`, when given, receives the units of each kind: memory, flops, calls.
    """
    memory = Poly()
    body_refs = [r for r in loop.refs if r.subscripts or r.deref]
    for ref in body_refs:
        memory = memory + nest.weight(_innermost(loop, ref.span))
    text = source.data[loop.span.start_byte : loop.span.end_byte].decode(
        "utf-8", errors="replace"
    )
    flops = Poly()
    for offset, count in float_ops(text, float_names(source, loop)):
        flops = flops + nest.weight(loop.span.start_byte + offset).scale(count)
    calls = Poly()
    for call in loop.calls:
        cost = _call_cost(call.name, call.args, source, values, depth)
        if cost is None:
            return None
        calls = calls + nest.weight(_innermost(loop, call.span)) * cost
    # Every iteration costs at least its loop control.
    total = memory + flops + calls
    for inner in loop.walk():
        total = total + nest.weight(inner.id)
    if parts is not None:
        parts.update(memory=memory, flops=flops, calls=calls)
    return total


def _capped_reason(
    loop: Loop, source: SourceFile, values: dict[str, Poly], floor: int
) -> str:
    """A small-loop reason when an array extent it indexes keeps its work small."""
    capped = extent_cap(source, loop, values)
    nest = _Nest(loop, values)
    if capped is None or any(inner.id != loop.id for inner in nest.unknown):
        return ""
    cap, name = capped
    nest.trips[loop.id] = Poly.const(cap)
    work = _work(loop, source, nest, values)
    if work is None or not work.is_constant or work.constant >= floor:
        return ""
    return (
        f"small loop: at most {cap} iterations (`{name}` has {cap} elements), "
        f"≈ {fmt_units(work.constant)} work units; likely slower in parallel"
    )


def _work_of(
    source: SourceFile, values: dict[str, Poly]
) -> Callable[[Loop, bool], Poly | None]:
    """Units of one iteration (True) or one execution (False) of a loop."""

    def work(loop: Loop, one: bool) -> Poly | None:
        nest = _Nest(loop, values)
        if any(inner.id != loop.id or not one for inner in nest.unknown):
            return None  # a trip count it does not know (or a triangle's)
        if one:
            nest.trips[loop.id] = Poly.const(1)
        return _work(loop, source, nest, values)

    return work


def _at_default_sizes(poly: Poly) -> float:
    """The value of `poly` with every open size at DEFAULT_SIZE."""
    filled = poly.substitute({n: Poly.const(DEFAULT_SIZE) for n in poly.names()})
    return float(filled.constant) if filled.is_constant else 0.0


def _per_iteration(
    loop: Loop, source: SourceFile, values: dict[str, Poly]
) -> int | None:
    """The work units of one iteration of `loop`, when every inner size is known."""
    work = _work_of(source, values)(loop, True)
    return work.constant if work is not None and work.is_constant else None


def _per_innermost(
    loop: Loop, source: SourceFile, values: dict[str, Poly]
) -> int | None:
    """The work units of one innermost iteration of `loop`'s nest, body and control."""
    nest = _Nest(loop, values)
    nest.trips = dict.fromkeys(nest.loops, Poly.const(1))
    work = _work(loop, source, nest, values)
    return work.constant if work is not None and work.is_constant else None


def estimate_loop(
    analysis: FileAnalysis, loop: Loop, offload: bool, collapsed: int = 1
) -> Estimate:
    """The cost estimate of a parallel pragma on `loop` (with `collapsed` loops)."""
    source = analysis.source
    values = constant_macros(source)
    fn = source.function(loop.function)
    if fn is not None:
        values |= fixed_sizes(analysis, fn, values)
    nest = _Nest(loop, values)
    parts: dict[str, Poly] = {}
    found = _work(loop, source, nest, values, parts=parts)
    assumptions = tuple(
        f"the loop at line {inner.line} has no known trip count: counted once"
        for inner in nest.unknown
        if inner.id != loop.id
    )
    if found is None:
        assumptions += ("a function it calls has work the model cannot count",)
    work = found if found is not None else Poly.sym("?")
    floor = KERNEL_UNITS if offload else REGION_UNITS
    trip = nest.trips.get(loop.id)
    chain = [loop]
    while len(chain) < collapsed and chain[-1].children:
        chain.append(chain[-1].children[0])
    parallel_iters: Poly | None = Poly.const(1)
    for inner in chain:
        inner_trip = nest.trips.get(inner.id)
        parallel_iters = (
            None
            if parallel_iters is None or inner_trip is None
            else parallel_iters * inner_trip
        )
    iterations = (
        parallel_iters.constant
        if parallel_iters is not None and parallel_iters.is_constant
        else None
    )
    nested = nested_context(analysis, loop)
    context = nested or unused_context(analysis, loop) or shape_reason(source, loop)
    work_of = _work_of(source, values)
    if not offload and not context:
        context = (
            atomic_reason(analysis.of(loop), _per_iteration(loop, source, values))
            or piece_reason(analysis, loop)
            or serial_share_reason(analysis, loop, work_of, _at_default_sizes)
            or once_reason(analysis, loop, work_of, _at_default_sizes)
            or verify_reason(analysis, loop, _per_innermost(loop, source, values))
            or input_bound_reason(analysis, loop, work_of, values)
        )
    features = (
        loop_features(analysis, loop, work, parts, parallel_iters, bool(nested))
        if found is not None
        else None
    )
    if not context and found is not None and (trip is None or not trip.is_constant):
        context = _capped_reason(loop, source, values, floor)
    if not context and found is not None and not nest.unknown:
        context = outer_range_reason(source, loop, work, values, floor)
        context = context or stack_reason(source, loop, work, values, floor)
    if found is None or not work.is_constant or nest.unknown:
        # A piece of unknown size per outer iteration: small on average.
        context = context or segment_reason(source, loop, values)
        if not context and not offload:
            light = _per_innermost(loop, source, values)
            context = light_pass_reason(analysis, loop, light)
            context = context or table_reason(analysis, loop, values, light)
        summary = f"≈ {work.render()} work units per execution"
        if trip is None or found is None:
            summary = "work unknown: " + (
                "the loop's trip count is not known"
                if trip is None
                else "a callee's work is not known"
            )
        elif len(work.names()) == 1 and not nest.unknown:
            summary += f" ({size_threshold(work, floor)})"
        return Estimate(
            work=work if found is not None and not nest.unknown else None,
            units=None,
            iterations=iterations,
            profitable=False if context else None,
            summary=summary,
            why=context,
            assumptions=assumptions,
            features=features,
            predicted=_predict(features, offload),
        )
    units = work.constant
    summary = f"≈ {fmt_units(units)} work units per execution"
    why = context
    predicted = _predict(features, offload)
    weights = load_weights() if not offload else None
    if weights is not None and features is not None and predicted is not None:
        if not why and predicted <= weights.threshold:
            why = "small loop: likely slower in parallel (fitted to measurements)"
    elif not why and units < floor:
        why = "small loop: likely slower in parallel"
    elif not why and not offload:
        why = few_iterations_reason(iterations, units, floor)
    few = iterations is not None and iterations < KERNEL_ITERATIONS
    if not why and offload and few:
        why = f"{iterations} parallel iterations leave most of the GPU idle"
    return Estimate(
        work=work,
        units=units,
        iterations=iterations,
        profitable=not why,
        summary=summary,
        why=why,
        assumptions=assumptions,
        features=features,
        predicted=predicted,
    )


def _predict(features: LoopFeatures | None, offload: bool) -> float | None:
    """The fitted log2 speedup on a CPU, when weights are shipped (not for offload)."""
    weights = load_weights() if not offload else None
    if weights is None or features is None:
        return None
    return weights.predict(features)
