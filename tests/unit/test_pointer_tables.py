"""A local table of pointers set once by its initializer: `t[c][k]` is the element."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect
from accls.suggest.pragma import Target

_TEXT = """
#include <stdlib.h>
#define N 4000
static double A[N], B[N], px[N];
void keep(double **t);
double run(void) {
  double *buf = malloc(2 * N * sizeof(double));
  for (int i = 0; i < 2 * N; i++) buf[i] = i;
  DECLS
  for (int i = 0; i < N - 1; i++) BODY;
  double s = buf[3] + A[2];
  free(buf);
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
        ("double *t[2] = {A, B};", "t[1][i] = t[0][i] * 2.0"),
        ("double *t[2] = {buf, buf + N};", "t[1][i] = t[0][i] + px[i]"),
        ("double *t[2] = {buf, buf + N};", "t[0][i] = px[i]"),
        ("double *t[] = {&A[0], B + 1};", "t[0][i] = t[1][i] * 2.0"),
    ],
)
def test_entries_apart_are_proved_apart(decls: str, body: str) -> None:
    fact = _last(decls, body)
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    ("decls", "body"),
    [
        # two entries one element apart: t[1][i] is t[0][i + 1]
        ("double *t[2] = {buf, buf + 1};", "t[1][i] = t[0][i] * 2.0"),
        ("double *t[2] = {buf, buf + N - 2};", "t[1][i] = t[0][i] * 2.0"),
        # an entry stored again: t[1] is A
        ("double *t[2] = {A, B}; t[1] = A;", "t[1][i] = t[0][i + 1]"),
        # the entry's pointer re-pointed after the table is built
        ("double *p = A; double *t[2] = {p, B}; p = B;", "p[i] = t[1][i + 1]"),
        # the table passed on, or its address copied: a callee may store into it
        ("double *t[2] = {A, B}; keep(t);", "t[1][i] = t[0][i + 1]"),
        ("double *t[2] = {A, B}; double **q = t; q[1] = A;", "t[1][i] = t[0][i + 1]"),
        # an entry chosen by the iteration
        ("double *t[2] = {A, B};", "t[i % 2][i] = t[0][i + 1]"),
    ],
)
def test_entries_that_may_overlap_stay_refused(decls: str, body: str) -> None:
    assert not _last(decls, body).parallel


_TABLE = """\
#include <stdlib.h>
#define N 4000
static double A[N], B[N];
void run(void) {
  double *t[2] = {A, B};
  for (int i = 0; i < N; i++) t[1][i] = t[0][i] * 2.0;
}
"""


@pytest.mark.parametrize(
    ("dialect", "target", "offered"),
    [
        (Dialect.OPENMP, Target.CPU, True),
        # offloaded, the device would follow the host addresses the table holds
        (Dialect.OPENMP, Target.GPU, False),
        (Dialect.OPENACC, Target.GPU, False),
    ],
)
def test_a_loop_through_a_host_table_is_not_offloaded(
    dialect: Dialect, target: Target, offered: bool
) -> None:
    settings = Settings(dialect=dialect, target=target, validate=False)
    (found,) = suggest_text(_TABLE, "t.c", settings).suggestions
    assert (found.pragma is not None) is offered
    if not offered:
        assert "host address" in " ".join(found.reasons)


_MOVED = """
static int g_off = 1;
static void set_off(int v) { g_off = v; }
void widen(int *m, int n);
double run(double *buf, int n) {
  DECLS
  for (int i = 0; i < BOUND; i++) t[1][i] = t[0][i] * 0.5 + 1.0;
  return t[1][3];
}
"""


@pytest.mark.parametrize(
    ("decls", "bound"),
    [
        # the offset's variable moved through a pointer after the table is built:
        # t[1] is still buf + 1, while `buf + m` read at the loop says buf + n
        ("int m = 1; int *pm = &m; double *t[2] = {buf, buf + m}; *pm = n;", "m"),
        ("int m = 1; double *t[2] = {buf, buf + m}; widen(&m, n);", "m"),
        # a global offset a callee moves
        ("double *t[2] = {buf, buf + g_off}; set_off(n);", "g_off"),
    ],
)
def test_an_offset_moved_unseen_after_the_table_stays_refused(
    decls: str, bound: str
) -> None:
    text = _MOVED.replace("DECLS", decls).replace("BOUND", bound)
    fact = next(f for f in analyze_text(text).facts if f.loop.function == "run")
    assert not fact.parallel


def test_an_offset_of_a_steady_local_is_still_read() -> None:
    text = _MOVED.replace("DECLS", "int m = n; double *t[2] = {buf, buf + m};")
    fact = next(
        f
        for f in analyze_text(text.replace("BOUND", "m")).facts
        if f.loop.function == "run"
    )
    assert fact.parallel, [o.message for o in fact.obstacles]
