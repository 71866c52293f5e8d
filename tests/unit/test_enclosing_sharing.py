"""Data sharing decided by an enclosing construct: the innermost one naming it."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

REGION = """\
#include <stdlib.h>
void f(int n, int m, const double *restrict a, double *restrict b, double *t) {{
  int k;
  #pragma omp parallel {clauses}
  {{
    {before}
    #pragma omp for private(k)
    for (int i = 0; i < n; i++) {{
      {body}
    }}
  }}
}}
"""
FILL = (
    "for (k = 0; k < m; k++) t[k] = a[i * m + k]; for (k = 0; k < m; k++) b[i] += t[k];"
)
OWN = "t = malloc(m * sizeof(double));"


def _codes(clauses: str, body: str, before: str = "") -> set[str]:
    text = REGION.format(clauses=clauses, body=body, before=before)
    return {f.code for f in check_file(text, "t.c")}


@pytest.mark.parametrize(
    ("clauses", "before", "body", "flagged"),
    [
        ("private(t)", "", FILL, True),
        ("private(t)", "", "b[i] = t[i];", True),
        ("default(none) shared(a, b, n, m) private(t)", "", FILL, True),
        ("private(t)", OWN, FILL + " ", False),
        ("private(t)", "", "t = &b[i]; t[0] = a[i];", False),
        ("shared(t)", "", "b[i] = t[i];", False),
    ],
)
def test_pointer_private_on_the_region(
    clauses: str, before: str, body: str, flagged: bool
) -> None:
    """`parallel private(t)` around the `for` leaves every thread's `t` unset."""
    assert ("ACC112" in _codes(clauses, body, before)) is flagged


@pytest.mark.parametrize(
    ("clauses", "before", "flagged"),
    [
        ("firstprivate(t)", "", True),
        ("default(none) shared(a, b, n, m) firstprivate(t)", "", True),
        ("firstprivate(t)", OWN, False),
    ],
)
def test_pointer_copied_on_the_region_shares_its_block(
    clauses: str, before: str, flagged: bool
) -> None:
    """`parallel firstprivate(t)` copies the pointer, so the threads share `t[k]`."""
    assert ("ACC101" in _codes(clauses, FILL, before)) is flagged


NESTED = """\
void g(int n, double *a) {{
  double s = 0.0;
  #pragma omp parallel {outer}
  {{
    s = 1.0;
    #pragma omp parallel {inner}
    {{
      #pragma omp for
      for (int i = 0; i < n; i++) {{
        s = a[i];
        a[i] = s * 2.0;
      }}
    }}
  }}
}}
"""


@pytest.mark.parametrize(
    ("outer", "inner", "flagged"),
    [
        ("private(s)", "shared(s)", True),
        ("shared(s)", "private(s)", False),
        ("private(s)", "", False),
    ],
)
def test_innermost_clause_decides(outer: str, inner: str, flagged: bool) -> None:
    """`parallel private(s)` around `parallel shared(s)`: `s` is shared inside."""
    text = NESTED.format(outer=outer, inner=inner)
    codes = {f.code for f in check_file(text, "t.c")}
    assert ("ACC103" in codes) is flagged


def test_scalar_private_on_the_region_carries_a_value() -> None:
    """A running value privatized on the region is ACC112 on the inner `for`."""
    text = REGION.format(
        clauses="private(k)", before="", body="k = k + 1; b[i] = k;"
    ).replace("private(k)\n    for", "\n    for")
    assert "ACC112" in {f.code for f in check_file(text, "t.c")}
