"""The cost model's features per loop, and the weights fitted to measured speedups.

`accls-train perf` fits a linear model from a loop's features to the measured log2
speedup of its program when that loop alone runs in parallel, and writes
`models/perf/weights.json` with its data card (`make perf-model`; built on the
machine that will run the code, like every model, never committed). Without that
file (or with one this version cannot read) the cost model keeps its constant
region threshold.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

__all__ = [
    "DEFAULT_SIZE",
    "ENV_VAR",
    "FEATURE_NAMES",
    "LoopFeatures",
    "Weights",
    "load_weights",
]

DEFAULT_SIZE = 1_000
"""The value a size the file does not fix takes in the features (never in verdicts)."""

ENV_VAR = "ACCLS_PERF_WEIGHTS"
_SHIPPED = Path(__file__).resolve().parents[3] / "models" / "perf" / "weights.json"

FEATURE_NAMES = (
    "bias",
    "log10_units",
    "log10_iterations",
    "flop_share",
    "memory_share",
    "call_share",
    "log10_bytes",
    "nested",
    "log10_executions",
    "open_sizes",
    "log2_threads",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopFeatures:
    """What the cost model knows of one execution of a candidate parallel loop."""

    units: float  # work units of one execution (open sizes at DEFAULT_SIZE)
    iterations: float  # parallel iterations (likewise)
    flops: float
    memory: float  # memory accesses
    calls: float  # units spent in calls
    bytes: float  # about 8 bytes per memory access
    nested: bool  # its function runs only inside parallel code
    executions: float  # how often enclosing loops of its function run it per call
    open_sizes: int  # sizes the file does not fix

    def vector(self, threads: int) -> tuple[float, ...]:
        """The model's inputs, in FEATURE_NAMES order."""
        units = max(self.units, 1.0)

        def log(value: float) -> float:
            return math.log10(1.0 + max(value, 0.0))

        return (
            1.0,
            log(self.units),
            log(self.iterations),
            self.flops / units,
            self.memory / units,
            self.calls / units,
            log(self.bytes),
            1.0 if self.nested else 0.0,
            log(self.executions),
            float(min(self.open_sizes, 3)),
            math.log2(max(threads, 1)),
        )

    def as_json(self) -> dict[str, float | int | bool]:
        """The features as JSON (rounded)."""
        return {
            "units": round(self.units, 1),
            "iterations": round(self.iterations, 1),
            "flops": round(self.flops, 1),
            "memory": round(self.memory, 1),
            "calls": round(self.calls, 1),
            "bytes": round(self.bytes, 1),
            "nested": self.nested,
            "executions": round(self.executions, 1),
            "open_sizes": self.open_sizes,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Weights:
    """A fitted linear model: predicted log2 speedup = coefficients · features."""

    coefficients: tuple[float, ...]
    threshold: float  # a loop pays when its prediction exceeds this
    threads: int  # the thread count the decision is made for
    source: str  # where the weights were read from

    def predict(self, features: LoopFeatures, threads: int | None = None) -> float:
        """The predicted log2 speedup of parallelizing the loop."""
        vector = features.vector(threads if threads is not None else self.threads)
        return sum(w * x for w, x in zip(self.coefficients, vector, strict=True))

    def pays(self, features: LoopFeatures) -> bool:
        """Whether the fitted model predicts the pragma pays at `threads`."""
        return self.predict(features) > self.threshold


def load_weights(path: str | None = None) -> Weights | None:
    """The fitted weights at `path`, `$ACCLS_PERF_WEIGHTS` or models/perf; else None.

    `$ACCLS_PERF_WEIGHTS=none` keeps the constants even where models/perf exists.
    """
    chosen = path or os.environ.get(ENV_VAR) or str(_SHIPPED)
    return None if chosen == "none" else _read(chosen)


@cache
def _read(path: str) -> Weights | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        names = tuple(str(n) for n in data["features"])
        coefficients = tuple(float(c) for c in data["coefficients"])
        threshold = float(data.get("threshold", 0.0))
        threads = int(data.get("threads", 2))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if names != FEATURE_NAMES or len(coefficients) != len(names):
        return None  # fitted for other features: keep the constants
    if not all(math.isfinite(c) for c in (*coefficients, threshold)):
        return None
    return Weights(
        coefficients=coefficients, threshold=threshold, threads=threads, source=path
    )
