"""How much work one loop nest may cost the dependence test, counted in units.

The analysis is pure, so it counts work instead of reading a clock: array
references, distinct subscript-shape pairs tested exactly, and dependences
recorded. A nest past any limit is refused with "too large to analyse here"
(docs/checks/ACC114.md) in well under a second, never after minutes of work.
The limits sit far above the largest nests of the real kernels we measure on
(benchmarks/adversarial.py prints both).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Budget", "TooLarge"]


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits on the dependence test of one loop nest."""

    references: int = 20_000  # array references to arrays the nest writes
    tests: int = 20_000  # pairs of distinct subscript shapes tested exactly
    dependences: int = 50_000  # dependences recorded between references


class TooLarge(Exception):
    """A loop nest needs more work than its budget allows."""

    def __init__(self, what: str, count: int, limit: int) -> None:
        super().__init__(f"{count} {what} (the limit is {limit})")
        self.what = what
        self.count = count
        self.limit = limit
