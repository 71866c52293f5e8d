"""Loop variables narrower than `int` stay serial unless their bounds fit the type."""

from __future__ import annotations

import pytest
from accls.analysis import ObstacleCode, analyze_text


def _loop(header: str, prelude: str = "") -> tuple[bool, list[str]]:
    """(parallel, obstacle messages) of `header` writing `a[i]`."""
    text = (
        f"{prelude}int a[70000];\nvoid f(int n, unsigned char m) {{\n"
        f"  {header} a[i] = i;\n}}\n"
    )
    (facts,) = analyze_text(text).facts
    shape = [o.message for o in facts.obstacles if o.code is ObstacleCode.SHAPE]
    return facts.parallel, shape


@pytest.mark.parametrize(
    "header",
    [
        # 252 + 7 wraps to 3: the serial loop goes on, a parallel one (gcc) runs none.
        "for (unsigned char i = 0; i < 250; i += 7)",
        "for (unsigned short i = 0; i < 65535; i += 7)",
        "for (unsigned char i = 0; i < n; i++)",  # `n` may be past 255
        "for (unsigned char i = 0; i < m; i += 2)",
        "for (short i = 0; i <= 32767; i++)",  # never ends serially
        "for (signed char i = 100; i > -128; i -= 2)",
        # No value wraps, but 100 - -100 + 3 does not fit: gcc runs no iteration.
        "for (signed char i = 100; i > -100; i -= 3)",
        "for (char i = 0; i < 200; i++)",  # a signed `char` wraps at 127
        "for (uint8_t i = 0; i < 255; i += 2)",
        "for (small i = 0; i < 250; i += 7)",
    ],
)
def test_a_narrow_variable_whose_bounds_may_wrap_keeps_the_loop_serial(
    header: str,
) -> None:
    prelude = "typedef unsigned char uint8_t;\ntypedef uint8_t small;\n"
    parallel, shape = _loop(header, prelude)
    assert not parallel
    assert any("wraps around" in m for m in shape), shape


@pytest.mark.parametrize(
    "header",
    [
        "for (short i = 0; i < 300; i++)",
        "for (unsigned char i = 0; i < 240; i += 7)",
        "for (unsigned short i = 0; i < N; i += 7)",
        "for (signed char i = 120; i > 0; i -= 3)",
        "for (int i = 0; i < n; i += 7)",
        "for (unsigned i = 0; i < n; i++)",
    ],
)
def test_bounds_that_fit_the_type_or_an_int_variable_stay_parallel(
    header: str,
) -> None:
    parallel, shape = _loop(header, "#define N 60000\n")
    assert parallel, shape
    assert not shape


def test_each_loop_sees_the_variable_its_own_header_declares() -> None:
    text = (
        "int a[300];\nvoid f(unsigned char m) {\n"
        "  for (int i = 0; i < 300; i++) a[i] = i;\n"
        "  for (unsigned char i = 0; i < m; i += 7) a[i] = i;\n"
        "  for (int i = 0; i < 300; i++) a[i] += 1;\n"
        "}\n"
    )
    first, narrow, last = analyze_text(text).facts
    assert first.parallel
    assert not narrow.parallel
    assert any("wraps around" in o.message for o in narrow.obstacles)
    assert last.parallel


def test_a_counter_declared_before_the_loop_is_read_from_its_declaration() -> None:
    text = (
        "int a[300];\nvoid f(int n) {\n"
        "  unsigned char i;\n"
        "  for (i = 0; i < n; i++) a[i] = i;\n"
        "  { int i; for (i = 0; i < n; i++) a[i] = 1; }\n"
        "}\n"
    )
    outer, inner = analyze_text(text).facts
    assert not outer.parallel
    assert inner.parallel
