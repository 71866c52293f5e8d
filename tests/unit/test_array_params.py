"""Array-syntax parameters (`double x[N]`) are pointers in C: a call of the file
that passes one array to two of them (`f(a + 1, a)`) makes their loop unsafe."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze_text

_TEXT = """
#include <stdlib.h>
#define N 1000
double a[N + 1], b[N + 1], u[2][N];
void f(double x[], double y[N], int n) {
  for (int i = 0; i < n; i++) x[i] = y[i] * 0.5;
}
void call(void) {
  double *p = a + 1;
  double *m1 = malloc(8 * N), *m2 = malloc(8 * N);
  f(ARGS, N);
}
"""


def _kernel(args: str, assume: bool = False):  # type: ignore[no-untyped-def]
    text = dedent(_TEXT).replace("ARGS", args)
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=assume)).facts
    return next(f for f in facts if f.loop.line == 6)


@pytest.mark.parametrize("args", ["a + 1, a", "p, a", "(double *)(a + 1), a"])
@pytest.mark.parametrize("assume", [False, True])
def test_one_array_passed_twice_blocks_the_loop(args: str, assume: bool) -> None:
    fact = _kernel(args, assume)
    assert not fact.parallel
    assert any("may be one array" in o.message for o in fact.obstacles)


@pytest.mark.parametrize("args", ["a, b", "u[0], u[1]", "m1, m2", "m1, a"])
def test_distinct_arrays_keep_the_stated_assumption(args: str) -> None:
    fact = _kernel(args)
    assert fact.parallel
    assert any("distinct arrays" in a for a in fact.assumptions)
