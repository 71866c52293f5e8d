"""Integer parameters every call passes within loops' ranges: `0 <= p < N`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#define N 48
static double a[N][N];
static int gp;
static void bump(void) { gp += 100; }
static void rotate(int p, int q, double c) {
  for (int k = 0; k < N; k++) {
    double x = a[k][p], y = a[k][q];
    a[k][p] = c * x - y;
    a[k][q] = x + c * y;
  }
}
void sweep(int m) {
  CALLS
}
"""


def _rotate(calls: str):  # type: ignore[no-untyped-def]
    facts = analyze_text(_TEXT.replace("CALLS", calls)).facts
    return next(f for f in facts if f.loop.function == "rotate")


@pytest.mark.parametrize(
    "calls",
    [
        "for (int p = 0; p < N - 1; p++)\n"
        "    for (int q = p + 1; q < N; q++) rotate(p, q, 0.5);",
        "for (int p = N - 1; p >= 0; p--) rotate(p, 0, 0.5);",
        "rotate(0, N - 1, 0.5);\n"
        "  for (int p = 1; p <= N - 2; p++) rotate(p, p + 1, 0.3);",
    ],
)
def test_columns_every_call_keeps_in_the_row_are_parallel(calls: str) -> None:
    fact = _rotate(calls)
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    "calls",
    [
        # one call passes a column before the row: a[k][-1] is a[k - 1][N - 1]
        "for (int p = 0; p < N - 1; p++) rotate(p - 1, p + 1, 0.5);",
        # a value no loop bounds
        "for (int p = 0; p < N - 1; p++) rotate(p, m, 0.5);",
        # the loop body moves its variable: the header says nothing of it
        "for (int p = 0; p < N - 1; p++) { rotate(p, 0, 0.5); p -= 2; }",
        # a global loop variable: a callee in the body may move it
        "for (gp = 0; gp < N - 1; gp++) { bump(); rotate(gp, 0, 0.5); }",
        # its address is taken: callers the file does not show
        "void (*fp)(int, int, double) = rotate; fp(-1, 0, 0.5);",
    ],
)
def test_columns_not_kept_in_the_row_stay_refused(calls: str) -> None:
    assert not _rotate(calls).parallel


def test_a_parameter_the_function_assigns_has_no_call_range() -> None:
    text = _TEXT.replace("for (int k = 0;", "p = p - 1;\n  for (int k = 0;").replace(
        "CALLS", "for (int p = 0; p < N - 1; p++) rotate(p, p + 1, 0.5);"
    )
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "rotate")
    assert not fact.parallel


def test_a_loop_variable_reached_through_a_pointer_has_no_call_range() -> None:
    # `int *pp = &p` outside the loop, `*pp = -1` inside: the header's bounds
    # say nothing of the value passed (the eighth harm batch's probes)
    calls = (
        "int p;\n  int *pp = &p;\n"
        "  for (p = 0; p < N - 1; p++) { *pp = N; rotate(p, 0, 0.5); }"
    )
    assert not _rotate(calls).parallel
