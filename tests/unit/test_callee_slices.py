"""A callee reading its pointer at literal offsets reads that slice of the array."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

HEAD = """\
typedef double real_t;
static double norm3(const double *p) { return p[0] * p[0] + p[1] * p[1] + p[2] * p[2]; }
static double first(const real_t *p) { return *p; }
static double pair(const double *p) { return p[0] + p[1]; }
static double back(const double *p) { return p[-1] + p[0]; }
static double at(const double *p, int j) { return p[j]; }
static double onward(const double *p) { return back(p); }
static double moved(const double *p) { const double *q = p + 1; return q[0]; }
static double *kept;
static double keep(double *p) { kept = p; return p[0]; }
static double wide(const float *p) { return p[0]; }
void run(int n, double *a, double *restrict b, float *c) {
  for (int i = 1; i < n; i++) {
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n  }}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    reasons = " ".join(
        [
            *(o.message for o in loop.obstacles),
            *loop.call_effects,
            *(d.reason for d in loop.dependences),
        ]
    )
    return loop.parallel, reasons


@pytest.mark.parametrize(
    ("body", "slice_"),
    [
        ("a[3 * i] = norm3(&a[3 * i]);", "`a[3 * i + [0, 2]]`"),
        ("a[i] = 2.0 * first(&a[i]);", "`a[i]`"),
        ("a[i] = first(a + i) + 1.0;", "`a[i]`"),
        ("a[2 * i] = pair(&a[2 * i]); a[2 * i + 1] = 0.0;", "`a[2 * i + [0, 1]]`"),
        ("a[i] = back(&b[i]) * a[i];", "`b[i + [-1, 0]]`"),
    ],
)
def test_a_read_of_the_iteration_own_slice_is_no_dependence(
    body: str, slice_: str
) -> None:
    ok, why = _verdict(body)
    assert ok, why
    assert f"reads only {slice_}" in why


@pytest.mark.parametrize(
    "body",
    [
        "a[i] = pair(&a[i]);",  # reads a[i + 1], which the next iteration writes
        "a[i] = back(&a[i]);",  # reads a[i - 1], which the last one wrote
        "a[i] = back(a + i);",
        "a[i] = at(&a[i], 1);",  # an offset that is not a literal
        "a[i] = onward(&a[i]);",  # passed on to another function
        "a[i] = moved(&a[i]);",  # moved inside the callee
        "a[i] = keep(&a[i]);",  # stored where other iterations may read it
        "a[i] = wide((float *)&a[i]);",  # read as elements of another size
        "b[i] = back(a + i); a[i] = 1.0;",
    ],
)
def test_a_read_beyond_the_iteration_own_slice_keeps_its_dependence(
    body: str,
) -> None:
    ok, why = _verdict(body)
    assert not ok, why


ROWS = """\
typedef double real3[3];
static double norm3(const double *p) { return p[0] * p[0] + p[1] * p[1] + p[2] * p[2]; }
static double over(const double *p) { return p[0] + p[3]; }
static double wide(const float *p) { return p[0]; }
static double skip(const double *p, int k) { return p[k]; }
void rows(int n, real3 *a, double (*w)[3], double **t, double (*v)[4]) {
  for (int i = 0; i < n - 1; i++) {
"""


def _row_verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(ROWS + f"    {body}\n  }}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "rows" and f.loop.var == "i")
    reasons = " ".join(
        [
            *(o.message for o in loop.obstacles),
            *loop.call_effects,
            *(d.reason for d in loop.dependences),
        ]
    )
    return loop.parallel, reasons


@pytest.mark.parametrize(
    "body",
    ["a[i][0] = norm3(a[i]);", "w[i][2] = norm3(w[i]);", "v[i][3] = norm3(v[i]);"],
)
def test_a_row_read_inside_its_extent_is_the_row_access(body: str) -> None:
    ok, why = _row_verdict(body)
    assert ok, why
    assert "reads only `" in why


@pytest.mark.parametrize(
    "body",
    [
        "a[i][0] = norm3(a[i + 1]);",  # the next row, which the next iteration writes
        "a[i][0] = over(a[i]);",  # `p[3]` is the next row's first element
        "w[i][0] = skip(w[i], 2);",  # an offset that is not a literal
        "t[i][0] = norm3(t[i]);",  # a table's row: a pointer, extent unknown
        "a[i][0] = wide((const float *)a[i]);",  # read as elements of another size
    ],
)
def test_a_row_read_beyond_its_extent_keeps_its_dependence(body: str) -> None:
    ok, why = _row_verdict(body)
    assert not ok, why
