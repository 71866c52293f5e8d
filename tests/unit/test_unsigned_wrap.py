"""Unsigned loop variables stay serial when one step past the bound may wrap."""

from __future__ import annotations

import pytest
from accls.analysis import ObstacleCode, analyze_text

_PRELUDE = (
    "#include <stddef.h>\n#define N 1000\n#define TOP 4294967293u\ndouble a[1000];\n"
)


def _loop(header: str) -> tuple[bool, list[str]]:
    """(parallel, shape obstacle messages) of `header` adding into `s`."""
    text = (
        f"{_PRELUDE}double f(unsigned n, unsigned k, size_t m, unsigned short h,"
        f" unsigned t) {{\n  double s = 0;\n  {header} s += i % 7;\n  return s;\n}}\n"
    )
    (facts,) = analyze_text(text).facts
    shape = [o.message for o in facts.obstacles if o.code is ObstacleCode.SHAPE]
    return facts.parallel, shape


@pytest.mark.parametrize(
    "header",
    [
        # n = 4294967294: 4294967293 + 3 wraps to 0; gcc's parallel loop runs none.
        "for (unsigned i = 0; i < n; i += 3)",
        "for (unsigned i = 0; i <= n; i += 2)",
        "for (unsigned i = 0; i <= n; i++)",  # n = UINT_MAX never ends serially
        "for (size_t i = 1; i < m; i += 4)",
        # a 32-bit variable may index 2^32 elements: an access shows nothing
        "for (unsigned i = 0; i < n; i += 2) a[i] = 0;",
        "for (unsigned i = 0; i < 4294967295u; i += 3)",
        # a `continue` may skip the access in every iteration from some on
        "for (size_t i = 0; i < m; i += 2) { if (k > 3) continue; a[i + 1] = 0; }",
        "for (unsigned i = 0; i < n; i += t)",
        # k = 0: 1 - 3 wraps to 4294967294, still above k.
        "for (unsigned i = n; i > k; i -= 3)",
        "for (unsigned i = n; i >= k; i--)",  # k = 0 never ends serially
        "for (unsigned i = n; i >= 2; i -= 3)",
    ],
)
def test_an_unsigned_variable_that_may_wrap_keeps_the_loop_serial(header: str) -> None:
    parallel, shape = _loop(header)
    assert not parallel
    assert any("wraps around" in m for m in shape), shape


@pytest.mark.parametrize(
    "header",
    [
        "for (unsigned i = 0; i < n; i++)",
        "for (unsigned i = 0; i < N; i += 3)",
        "for (unsigned i = 0; i < TOP; i += 3)",  # 4294967292 + 3 still fits
        "for (unsigned i = 0; i <= h; i += 5)",  # at most 65535
        "for (size_t i = 0; i <= n; i += 2)",  # a 32-bit bound in a 64-bit type
        # every iteration touches a[i + 1]: no object has 2^63 elements
        "for (size_t i = 0; i < m; i += 2) a[i + 1] = 0;",
        "for (unsigned i = n; i > 0; i--)",
        "for (unsigned i = n; i > 2; i -= 3)",
        "for (unsigned i = n; i >= 3; i -= 3)",
        "for (int i = 0; i < (int)n; i += 3)",
    ],
)
def test_an_unsigned_variable_whose_bound_keeps_it_in_range_stays_parallel(
    header: str,
) -> None:
    parallel, shape = _loop(header)
    assert parallel, shape
