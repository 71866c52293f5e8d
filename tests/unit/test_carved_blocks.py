"""Pointers carved from one fresh allocation: apart from arrays, ranges among them."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
#define N 5000
static double px[N];
double *gp;
double run(void) {
  double *pool = malloc(3 * N * sizeof(double));
  for (int i = 0; i < 3 * N; i++) pool[i] = i;
  DECLS
  for (int i = 0; i < N; i++) BODY;
  double s = pool[7];
  free(pool);
  return s;
}
"""


def _last(decls: str, body: str):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("DECLS", decls).replace("BODY", body)
    facts = analyze_text(text).facts
    return max(facts, key=lambda f: f.loop.line)


@pytest.mark.parametrize(
    ("decls", "body"),
    [
        # a carved view never reaches a global array
        ("double *hi = pool + N;", "hi[i] = 2.0 * px[i]"),
        ("double *lo = pool; double *hi = pool + N;", "hi[i] = lo[i] + px[i]"),
        ("double *hi = pool + N; double *hj = hi + N;", "hj[i] = px[i] * hi[i]"),
        # two declarators of one declaration: `lo` is `pool`, `hi` is `pool + N`
        ("double *lo = pool, *hi = pool + N;", "hi[i] = lo[i] * 2.0"),
    ],
)
def test_views_of_a_fresh_block_are_proved_apart(decls: str, body: str) -> None:
    fact = _last(decls, body)
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    ("decls", "body"),
    [
        # one element of overlap: hi[0] is lo[N - 1]
        ("double *lo = pool, *hi = pool + N - 1;", "hi[i] = lo[i] * 2.0"),
        ("double *lo = pool; double *hi = pool + N - 1;", "hi[i] = lo[i] + px[i]"),
        # `hi` is stored in a global pointer: `gp` may be `hi`
        ("double *hi = pool + N; gp = hi;", "hi[i] = gp[i] * 2.0"),
        # from either of two blocks: not one block's view
        (
            "double *other = malloc(N * sizeof(double)); "
            "double *hi = px[0] > 0 ? pool : other;",
            "hi[i] = other[i] * 2.0",
        ),
    ],
)
def test_views_that_may_overlap_stay_refused(decls: str, body: str) -> None:
    assert not _last(decls, body).parallel


_FIELDS = """
#include <stdlib.h>
#define N 5000
struct two { double *a, *b; };
static double px[N];
double run(double *arg, int c) {
  double *pool = malloc(2 * N * sizeof(double));
  for (int i = 0; i < 2 * N; i++) pool[i] = i;
  DECLS
  for (int i = 0; i < N; i++) BODY;
  double s = pool[7];
  free(pool);
  return s;
}
"""


def _field_loop(decls: str, body: str):  # type: ignore[no-untyped-def]
    text = _FIELDS.replace("DECLS", decls).replace("BODY", body)
    return max(analyze_text(text).facts, key=lambda f: f.loop.line)


@pytest.mark.parametrize(
    ("decls", "body"),
    [
        # fields set by a brace initializer are links of the carved chain
        ("struct two t = {pool, pool + N};", "t.b[i] = t.a[i] * 2.0"),
        ("struct two t = {.b = pool + N, .a = pool};", "t.b[i] = t.a[i] * 2.0"),
        # a field in this call's block: apart from arrays and unassigned parameters
        ("struct two t; t.a = pool; t.b = pool + N;", "t.b[i] = t.a[i] * px[i]"),
        ("struct two t = {pool, pool + N};", "t.b[i] = arg[i] * 2.0"),
    ],
)
def test_fields_of_a_fresh_block_are_proved_apart(decls: str, body: str) -> None:
    fact = _field_loop(decls, body)
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    ("decls", "body"),
    [
        ("struct two t = {pool, pool + N - 1};", "t.b[i] = t.a[i] * 2.0"),
        ("struct two t = {.b = pool + 1, .a = pool};", "t.b[i] = t.a[i] * 2.0"),
        # set by the initializer and again (on some paths): which value is unknown
        ("struct two t = {pool, pool + N}; if (c) t.b = pool + 1;", "t.b[i] = t.a[i]"),
        # the parameter re-pointed into the block
        ("struct two t = {pool, pool + N}; arg = pool + N + 1;", "t.b[i] = arg[i]"),
    ],
)
def test_fields_that_may_overlap_stay_refused(decls: str, body: str) -> None:
    assert not _field_loop(decls, body).parallel
