"""A signed loop variable compared with an unsigned bound, from a negative start."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text


def _loop(header: str) -> tuple[bool, list[str]]:
    """(parallel, obstacle messages) of `header` writing `a[i + 8]`."""
    text = (
        "#include <stddef.h>\nint a[4000];\n"
        "void f(unsigned n, size_t m, int lo, unsigned short k, unsigned u0) {\n"
        f"  {header} a[i + 8] = i;\n}}\n"
    )
    (facts,) = analyze_text(text).facts
    return facts.parallel, [o.message for o in facts.obstacles]


@pytest.mark.parametrize(
    "header",
    [
        # -5 < n compares as unsigned: serially no iteration, gcc runs 1005.
        "for (int i = -5; i < n; i++)",
        "for (int i = -5; i < 1000u; i++)",
        "for (int i = lo; i < m; i++)",
        "for (long i = -5; i < m; i++)",
        "for (int i = -5; i < sizeof(a) / sizeof(a[0]) - 8; i++)",
        "for (int i = 7; i > 0u; i -= 2)",  # 1, then -1 > 0u goes on
    ],
)
def test_a_signed_variable_that_may_be_negative_against_unsigned_stays_serial(
    header: str,
) -> None:
    parallel, why = _loop(header)
    assert not parallel
    assert any("which is unsigned" in m for m in why), why


@pytest.mark.parametrize(
    "header",
    [
        "for (int i = 0; i < n; i++)",
        "for (int i = u0; i < n; i++)",
        "for (int i = -5; i < k; i++)",  # `unsigned short` is promoted to int
        "for (long i = -5; i < n; i++)",  # `unsigned` converts to `long`
        "for (int i = -5; i < lo; i++)",
        "for (int i = 9; i > 0u; i--)",  # 9 down to 1, then 0 stops it
    ],
)
def test_values_never_negative_or_a_signed_comparison_stay_parallel(
    header: str,
) -> None:
    parallel, why = _loop(header)
    assert parallel, why
