"""A write-write race proved at the element each iteration's inner loop writes first."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

PROGRAM = """\
#define N 400
#define NT 4
#define W 32
void f(double scratch[NT][3 * W], double *out) {{
  #pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < N; i++) {{
    double *s = scratch[{row}];
    int len = {length};
    for (int k = 0; k < len; k++)
      {write}
    double t = 0.0;
    for (int k = 0; k < len; k++)
      t += s[k];
    out[i] = t;
  }}
}}
"""


def _codes(
    row: str = "i % NT", length: str = "W * (1 + i % 3)", write: str = ""
) -> set[str]:
    text = PROGRAM.format(row=row, length=length, write=write or "s[k] = i + k;")
    return {f.code for f in check_file(text, "t.c")}


@pytest.mark.parametrize(
    ("row", "length", "write", "codes"),
    [
        # Rows i and i + 4 are one, and each iteration writes its [0]: a race.
        ("i % NT", "W * (1 + i % 3)", "", {"ACC101"}),
        ("i % NT", "W + i", "", {"ACC101"}),
        # Twins keep the doubt: an iteration may write nothing (`len` 0 at i % 3
        # == 0), the first element moves with `k + i`, or a branch skips it.
        ("i % NT", "W * (i % 3)", "", {"ACC102"}),
        ("i % NT", "W * (1 + i % 3)", "s[k + i % 2] = i + k;", {"ACC102"}),
        ("i % NT", "W * (1 + i % 3)", "if (k > 0) s[k] = i + k;", {"ACC102"}),
        (
            "i % NT",
            "W * (1 + i % 3)",
            "{ if (out[i] > 0) break; s[k] = i; }",
            {"ACC102"},
        ),
    ],
)
def test_first_element_race(row: str, length: str, write: str, codes: set[str]) -> None:
    assert _codes(row, length, write) & {"ACC101", "ACC102"} == codes
