"""A loop's estimate, the fitted perf model's inputs, and the sizes a file fixes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accls.analysis.analyze import FileAnalysis
from accls.analysis.cost_initialisers import constant_macros
from accls.analysis.cost_weights import DEFAULT_SIZE, LoopFeatures
from accls.frontend import Loop, Poly
from accls.frontend.exprs import expression_poly

__all__ = [
    "Estimate",
    "constant_macros",
    "fmt_units",
    "loop_features",
    "size_threshold",
]


@dataclass(frozen=True, slots=True)
class Estimate:
    """The work of one execution of a loop, and whether parallelizing it pays."""

    work: Poly | None  # units, symbolic in open sizes; None: a trip count unknown
    units: int | None  # the same, when every size is known
    iterations: int | None  # the loop's own trip count, when known
    profitable: bool | None  # None: it depends on sizes the model does not know
    summary: str  # one line for people: "≈ 2.6·10⁵ units per execution"
    why: str = ""  # when not profitable: the reason in a few words
    assumptions: tuple[str, ...] = ()
    features: LoopFeatures | None = None  # the fitted model's inputs
    predicted: float | None = None  # fitted log2 speedup at its thread count

    def as_json(self) -> dict[str, Any]:
        """The `estimate` object of the CLI's JSON."""
        return {
            "work": self.work.render() if self.work is not None else None,
            "units": self.units,
            "iterations": self.iterations,
            "profitable": self.profitable,
            "summary": self.summary,
            "why": self.why or None,
            "assumptions": list(self.assumptions),
            "features": self.features.as_json() if self.features else None,
            "predicted_log2_speedup": (
                round(self.predicted, 3) if self.predicted is not None else None
            ),
        }


_SIZES = (16, 64, 256, 1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304)


def loop_features(
    analysis: FileAnalysis,
    loop: Loop,
    work: Poly,
    parts: dict[str, Poly],
    parallel_iters: Poly | None,
    nested: bool,
) -> LoopFeatures:
    """The fitted model's inputs: sizes the file leaves open count as DEFAULT_SIZE."""
    source = analysis.source
    values = constant_macros(source)
    open_names = set(work.names())
    for part in parts.values():
        open_names |= part.names()

    def number(poly: Poly | None) -> float:
        if poly is None:
            return float(DEFAULT_SIZE)
        filled = poly.substitute(values)
        filled = filled.substitute(
            {n: Poly.const(DEFAULT_SIZE) for n in filled.names()}
        )
        if not filled.is_constant:
            return float(DEFAULT_SIZE)
        return max(0.0, float(filled.constant))  # `n - m` at equal sizes: none

    executions = 1.0
    start = loop.span.start_byte
    for outer in (
        outer
        for nest in source.nests
        if nest.span.start_byte <= start < nest.span.end_byte
        for outer in nest.walk()
    ):
        inside = outer.span.start_byte < start < outer.span.end_byte
        if inside and outer.function == loop.function:
            trip = expression_poly(outer.trip_count) if outer.trip_count else None
            executions *= number(trip)
    memory = number(parts.get("memory"))
    return LoopFeatures(
        units=number(work),
        iterations=number(parallel_iters),
        flops=number(parts.get("flops")),
        memory=memory,
        calls=number(parts.get("calls")),
        bytes=8.0 * memory,
        nested=nested,
        executions=executions,
        open_sizes=len(open_names),
    )


def fmt_units(units: int) -> str:
    """`12345` as `1.2·10^4`; small numbers as they are."""
    if units < 10_000:
        return str(units)
    mantissa, exponent = f"{units:.1e}".split("e")
    return f"{mantissa}·10^{int(exponent)}"


def size_threshold(work: Poly, floor: int) -> str:
    """`worth it from n = 256 on`, for work in one unknown size."""
    (name,) = work.names()
    for size in _SIZES:
        value = work.substitute({name: Poly.const(size)})
        if value.is_constant and value.constant >= floor:
            return f"worth it from `{name}` ≈ {size} on"
    return f"worth it only for very large `{name}`"
