"""ACC112 for a `private` pointer the loop uses but never sets."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

TEXT = """\
#include <stdlib.h>
void f(int n, int m, const double *restrict a, double *restrict b, double *q) {{
  double *t = malloc(m * sizeof(double));
  int k;
  {pragma}
  for (int i = 0; i < n; i++) {{
    {body}
  }}
  free(t);
}}
"""
FILL = (
    "for (k = 0; k < m; k++) t[k] = a[i * m + k]; for (k = 0; k < m; k++) b[i] += t[k];"
)
SET = "double *p; p = &b[i]; *p = a[i];"


def _codes(pragma: str, body: str) -> set[str]:
    text = TEXT.format(pragma=pragma, body=body)
    return {f.code for f in check_file(text, "t.c")}


@pytest.mark.parametrize(
    ("pragma", "body", "flagged"),
    [
        ("#pragma omp parallel for private(t, k)", FILL, True),
        ("#pragma acc parallel loop private(t)", FILL, True),
        ("#pragma omp parallel for private(q)", "q[0] = a[i];", True),
        ("#pragma acc parallel loop private(t[0:m])", FILL, False),
        ("#pragma omp parallel for private(k)", SET, False),
        ("#pragma omp parallel for private(q)", "q = &b[i]; q[0] = a[i];", False),
    ],
)
def test_unset_private_pointer_is_reported(
    pragma: str, body: str, flagged: bool
) -> None:
    assert ("ACC112" in _codes(pragma, body)) is flagged


@pytest.mark.parametrize(
    ("pragma", "body", "flagged"),
    [
        ("#pragma omp parallel for firstprivate(t) private(k)", FILL, True),
        ("#pragma omp parallel for lastprivate(t) private(k)", FILL, True),
        ("#pragma acc parallel loop firstprivate(t)", FILL, True),
        ("#pragma acc parallel loop firstprivate(t[0:m])", FILL, False),
        ("#pragma omp parallel for firstprivate(q)", "q = &b[i]; q[0] = a[i];", False),
    ],
)
def test_copied_pointer_still_shares_its_block(
    pragma: str, body: str, flagged: bool
) -> None:
    """`firstprivate(t)` copies the pointer: the threads still share its block."""
    assert ("ACC101" in _codes(pragma, body)) is flagged
