"""A callee passed a row `a[i]` must be proved to keep within it."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

SOURCE = """\
#define M 20
typedef double vec3[3];
static double a[64][M];
static vec3 *v;
static void bump(double *p, int n) { for (int k = 0; k < n; k++) p[k] += 1; }
static void grow(double *p, int n) { n = 2 * n; for (int k = 0; k < n; k++) p[k] = 0; }
static void row_bump(double *p) { for (int k = 0; k < M; k++) p[k] += 1; }
static void wide_bump(double *p) { for (int k = 0; k <= M; k++) p[k] += 1; }
static void back(double *p) { p[-1] = 0; p[0] += 1; }
static void first(double *p) { *p = 1; }
static void keep(double *p) { double *q = p; q[M] = 1; }
static void zero3(vec3 p) { p[0] = 0; p[1] = 0; p[2] = 0; }
static void zero4(vec3 p) { for (int k = 0; k < 4; k++) p[k] = 0; }
void run(int n) {
  for (int i = 0; i < n; i++) {
    BODY;
  }
}
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(SOURCE.replace("BODY", body)).facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    reasons = " ".join(
        [*(o.message for o in loop.obstacles), *loop.call_effects]
        + [d.reason for d in loop.dependences]
    )
    return loop.parallel, reasons


@pytest.mark.parametrize(
    "body",
    [
        # Twice the row: iteration i writes row i + 1 too (Archer: a race).
        "bump(a[i], 2 * M)",
        # The count comes from the caller: proved only when it is a constant
        # that fits and the callee leaves the parameter alone.
        "bump(a[i], M + 1)",
        "bump(a[i], 21)",
        "bump(a[i], n)",
        "grow(a[i], M)",
        "wide_bump(a[i])",
        "back(a[i])",
        # The pointer copied: its accesses are not followed.
        "keep(a[i])",
        "zero4(v[i])",
    ],
)
def test_a_callee_that_may_leave_the_row_refuses(body: str) -> None:
    parallel, why = _verdict(body)
    assert not parallel, why


@pytest.mark.parametrize(
    "body",
    ["row_bump(a[i])", "first(a[i])", "zero3(v[i])", "bump(a[i], M)", "bump(a[i], 20)"],
)
def test_a_callee_kept_within_the_row_is_parallel(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why
    assert "writes only the row" in why


FIELDS = """\
typedef double real3[3];
struct Atoms { real3 *f; };
struct Sim { struct Atoms *atoms; };
static void zero3(real3 p) { p[0] = 0; p[1] = 0; p[2] = 0; }
static void zero6(real3 p) { for (int k = 0; k < 6; k++) p[k] = 0; }
void run(struct Sim *s, int n) {
  for (int ii = 0; ii < n; ii++) {
    CALL(s->atoms->f[ii]);
  }
}
"""


@pytest.mark.parametrize(("callee", "parallel"), [("zero3", True), ("zero6", False)])
def test_a_row_reached_through_fields_has_its_typedef_extent(
    callee: str, parallel: bool
) -> None:
    found = analyze_text(FIELDS.replace("CALL", callee)).facts
    loop = next(f for f in found if f.loop.function == "run")
    assert loop.parallel is parallel, [o.message for o in loop.obstacles]
