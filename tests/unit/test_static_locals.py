"""A `static` local of a callee is state shared by every call, unless it is constant."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

SOURCE = """\
static double f(const double *x) {
  DECL
  return USE + *x;
}
void run(int n, const double *restrict a, double *restrict b) {
  for (int i = 0; i < n; i++) b[i] = f(&a[i]);
}
"""


def _parallel(decl: str, use: str) -> bool:
    text = SOURCE.replace("DECL", decl).replace("USE", use)
    found = analyze_text(text).facts
    return next(f for f in found if f.loop.function == "run").parallel


@pytest.mark.parametrize(
    ("decl", "use"),
    [
        # A pointer to const: the pointer itself changes from call to call.
        ("static const double *last; double r = last ? *last : 0; last = x;", "r"),
        ("static double sum; sum += *x;", "sum"),
    ],
)
def test_a_static_the_calls_change_refuses(decl: str, use: str) -> None:
    assert not _parallel(decl, use)


@pytest.mark.parametrize(
    ("decl", "use"),
    [
        ("static const double w = 0.5;", "w"),
        ("static const double *const none = 0;", "(none ? 1.0 : 0.0)"),
        ('static const char *names[] = {"a", "b"};', "(double)names[0][0]"),
    ],
)
def test_a_constant_static_is_no_state(decl: str, use: str) -> None:
    assert _parallel(decl, use)
