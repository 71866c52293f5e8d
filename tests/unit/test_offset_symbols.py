"""Offsets whose variable may change unseen: carved pointers, fields, table entries.

`double *b = blk + off;` is read back at the loop as `blk + off`, the pointer's
value only while `off` keeps its value: a global a call assigns afterwards, or a
local whose address is taken, may move with no write of its name in sight (the
eighth harm batch's probes: racy pragmas on `b[i] = a[i]` with `b == blk + 1`).
"""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
struct Pair { double *src; double *dst; };
static int g_off = 1;
static const int k_off = 4000;
static void set_off(int v) { g_off = v; }
void widen(int *m, int n);
double run(int n) {
  double *blk = malloc((size_t)(2 * n + 8000) * sizeof(double));
  DECLS
  for (int i = 0; i < BOUND; i++) BODY;
  double s = blk[3];
  free(blk);
  return s;
}
"""


def _fact(decls: str, bound: str, body: str):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("DECLS", decls).replace("BOUND", bound).replace("BODY", body)
    return next(f for f in analyze_text(text).facts if f.loop.function == "run")


_CARVED = "b[i] = 0.5 * a[i] + 1.0"
_FIELDS = "pr.dst[i] = 0.5 * pr.src[i] + 1.0"


@pytest.mark.parametrize(
    ("decls", "bound", "body"),
    [
        (
            "double *a = blk; double *b = blk + g_off; set_off(n);",
            "g_off",
            _CARVED,
        ),
        (
            "struct Pair pr = {blk, blk + g_off}; set_off(n);",
            "g_off",
            _FIELDS,
        ),
        (
            "int off = 1; int *po = &off; double *a = blk; double *b = blk + off;"
            " *po = n;",
            "off",
            _CARVED,
        ),
        (
            "int off = 1; int *po = &off; struct Pair pr = {blk, blk + off}; *po = n;",
            "off",
            _FIELDS,
        ),
    ],
)
def test_an_offset_moved_unseen_stays_refused(
    decls: str, bound: str, body: str
) -> None:
    assert not _fact(decls, bound, body).parallel


@pytest.mark.parametrize(
    ("decls", "bound", "body"),
    [
        # a global no call moves after the pointers are set, or a constant one
        ("double *a = blk; double *b = blk + g_off;", "g_off", _CARVED),
        ("double *a = blk; double *b = blk + k_off;", "k_off", _CARVED),
    ],
)
def test_an_offset_that_holds_still_is_still_read(
    decls: str, bound: str, body: str
) -> None:
    fact = _fact(decls, bound, body)
    assert fact.parallel, [o.message for o in fact.obstacles]
