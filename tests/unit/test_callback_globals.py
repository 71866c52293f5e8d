"""What a library call's callback reads, the call reads: `qsort(.., cmp)` runs `cmp`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

SOURCE = """\
#include <stdlib.h>
static int order;
static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return order * ((a > b) - (a < b));
}
static void sort_row(double *row, int m) { qsort(row, m, sizeof(double), cmp); }
void run(int n, int m, double *restrict a) {
  for (int i = 0; i < n; i++) {
    BODY
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
        # Privatising `order` would hide the loop's value from `cmp`, which
        # reads the global: the sort would use a stale order.
        "order = (i & 1) ? 1 : -1; qsort(&a[i*m], m, sizeof a[0], cmp);",
        # The same through a function of the file that calls qsort.
        "double row[8] = {0}; order = (i & 1) ? 1 : -1; sort_row(row, 8);"
        " a[i] = row[0];",
    ],
)
def test_a_global_the_callback_reads_and_the_loop_writes_refuses(body: str) -> None:
    parallel, why = _verdict(body)
    assert not parallel
    assert "reads the global `order`" in why


@pytest.mark.parametrize(
    "body",
    [
        "qsort(&a[i*m], m, sizeof a[0], cmp);",
        "double row[8] = {0}; sort_row(row, 8); a[i] = row[0];",
    ],
)
def test_a_callback_reading_a_global_the_loop_leaves_alone_is_fine(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why
