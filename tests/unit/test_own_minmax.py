"""C: `m = max(m, a[i])` is a reduction only when `max` is no function of the file."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <math.h>
#define N 1000
HEAD
double a[N];
double top(void) {
  double m = a[0];
  for (int i = 0; i < N; i++) m = UPDATE;
  return m;
}
"""


def _fact(head: str, update: str):  # type: ignore[no-untyped-def]
    (fact,) = analyze_text(_TEXT.replace("HEAD", head).replace("UPDATE", update)).facts
    return fact


@pytest.mark.parametrize(
    ("head", "update"),
    [
        ("static double max(double x, double y) { return x + y; }", "max(m, a[i])"),
        ("double MIN(double x, double y) { return 0.5 * (x + y); }", "MIN(m, a[i])"),
        # named max, computes a minimum
        ("double max(double x, double y) { return x < y ? x : y; }", "(max(m, a[i]))"),
    ],
)
def test_a_max_the_file_defines_is_no_reduction(head: str, update: str) -> None:
    fact = _fact(head, update)
    assert not fact.parallel
    assert any("a function this file defines" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    ("head", "update"),
    [
        ("#define MAX(x, y) ((x) > (y) ? (x) : (y))", "MAX(a[i], m)"),
        ("", "fmax(m, a[i])"),
        ("", "fmin(a[i], m)"),
    ],
)
def test_a_macro_or_the_library_stays_a_reduction(head: str, update: str) -> None:
    fact = _fact(head, update)
    assert fact.parallel, [o.message for o in fact.obstacles]
    assert [s.op for s in fact.scalars if s.name == "m" and s.op is not None]
