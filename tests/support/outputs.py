"""Compare two program outputs: text and integers exactly, other numbers closely.

Shared by the fixture runs (tests/test_openmp_runs.py) and the differential
oracle (tests/differential/oracle.py).
"""

from __future__ import annotations

import math
import re

__all__ = ["ABS_TOL", "REL_TOL", "compare_outputs"]

REL_TOL = 1e-9
ABS_TOL = 1e-12

# A number as C's printf writes it; group 1 is the whole token, so re.split
# alternates text, number, text, ...
_NUMBER = re.compile(
    r"([-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan))",
    re.IGNORECASE,
)


def _is_integer(token: str) -> bool:
    return token.lstrip("+-").isdigit()


def compare_outputs(expected: str, actual: str) -> str | None:
    """Describe the first difference between two outputs, or None if they agree.

    Text must match exactly, integer tokens exactly, other numbers within
    REL_TOL (or ABS_TOL near zero).
    """
    want, got = _NUMBER.split(expected), _NUMBER.split(actual)
    if len(want) != len(got):
        return f"different shape: {len(want)} vs {len(got)} tokens"
    for index, (w, g) in enumerate(zip(want, got, strict=True)):
        if w == g:
            continue
        if index % 2 == 0:
            return f"text differs: {w!r} vs {g!r}"
        if _is_integer(w) or _is_integer(g):
            return f"integer differs: {w} vs {g}"
        x, y = float(w), float(g)
        if math.isnan(x) and math.isnan(y):
            continue
        if not math.isclose(x, y, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return f"number differs beyond {REL_TOL:g}: {w} vs {g}"
    return None
