"""What every template shares: the Kernel value, random names and C fragments."""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Kernel", "Names"]


@dataclass(frozen=True, slots=True)
class Kernel:
    """One generated function: its template, C text and whether it must be refused."""

    template: str
    code: str
    serial: bool = False  # a carried dependence: the analysis should refuse it


_ARRAYS = "a b c d x y z u v w p q r s src dst in out buf val res tmp img field".split()
_OUTER = "i ii row r idx".split()
_INNER = "j jj col c".split()
_INNERMOST = "k kk l".split()
_SIZES = "n m len count size nx ny".split()
_SCALARS = "alpha beta scale factor gain".split()
_ACCUMULATORS = "sum acc total s0 result".split()


class Names:
    """Distinct random names for one function."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[str] = set()

    def pick(self, pool: list[str]) -> str:
        """A name from `pool` not used yet in this function."""
        free = [name for name in pool if name not in self._used]
        name = self._rng.choice(free) if free else f"{pool[0]}{len(self._used)}"
        self._used.add(name)
        return name

    def arrays(self, count: int) -> list[str]:
        """`count` distinct array names."""
        return [self.pick(_ARRAYS) for _ in range(count)]


def _ctype(rng: random.Random) -> str:
    return rng.choice(["double", "double", "float"])


def _ptr(rng: random.Random, ctype: str, name: str, const: bool = False) -> str:
    qual = "const " if const else ""
    restrict = " restrict" if rng.random() < 0.8 else ""
    return f"{qual}{ctype} *{restrict} {name}".replace("* ", "*")


def _start(rng: random.Random) -> str:
    return rng.choice(["0", "0", "1"])


def _upper(rng: random.Random, i: str, n: str) -> str:
    """A loop condition over `n` elements, as people write it."""
    return rng.choice([f"{i} < {n}", f"{i} < {n}", f"{i} <= {n} - 1", f"{i} < {n} - 1"])
