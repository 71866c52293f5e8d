"""Slices of one row: `&r[i][c]` passed to a callee that uses `p[lo..hi]`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

HEAD = """\
#define N 1000
#define E 3
double r[N][E], s[N];
void scale3(double *p, double f) { p[0] *= f; p[1] *= f; p[2] *= f; }
void set1(double *p) { p[0] = 1.0; }
double norm3(const double *p) { return p[0] * p[0] + p[1] * p[1] + p[2] * p[2]; }
"""


def _parallel(body: str) -> bool:
    text = (
        f"{HEAD}void f(int j) {{\n  for (int i = 0; i < N; i++) {{\n{body}\n  }}\n}}\n"
    )
    found = analyze_text(text).facts
    return next(f for f in found if f.loop.function == "f").parallel


@pytest.mark.parametrize(
    "body",
    [
        "    r[i][0] = i; scale3(&r[i][0], 2.0);",
        "    r[i][1] = norm3(&r[i][0]);",
        "    r[i][2] = norm3(r[i]);",
        "    set1(&r[i][j]);",  # p[0] only: the element itself
    ],
)
def test_a_slice_inside_the_row_is_the_loops_access(body: str) -> None:
    assert _parallel(body)


@pytest.mark.parametrize(
    "body",
    [
        # p[2] is r[i][3], the first element of row i + 1, written by i + 1.
        "    r[i][0] = i; scale3(&r[i][1], 2.0);",
        "    r[i][0] = i; scale3(&r[i][j], 2.0);",  # a column that varies
        "    r[i + 1][2] = norm3(&r[i][0]);",  # row i + 1 written, row i read
        "    r[i][0] = norm3(&r[i][1]);",  # reads r[i + 1][0], written by i + 1
    ],
)
def test_a_slice_leaving_the_row_or_reaching_another_stays_refused(body: str) -> None:
    assert not _parallel(body)
