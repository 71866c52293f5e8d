"""A table of rows allocated apart, then handed to code that may re-point a row.

`memcpy(&t[1], &t[0], ..)`, `memmove(t + 1, t, ..)`, an unseen function or one
called through a pointer, or a struct that keeps the table: any of them may
leave two slots on one row, so the rows are no longer proved apart. A sort
only reorders the rows, and a function of the program that never stores a row
slot leaves them as they are.
"""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
#include <string.h>
extern void hook(double **t, int n);
extern void hook_row(double *r, int m);
static void (*fp)(double **t, int n);
struct holder { double **rows; };
extern void hold(struct holder *h);
static int cmp(const void *a, const void *b) {
  return (*(double *const *)a)[0] < (*(double *const *)b)[0];
}
static double peek(double **t, int i) { return t[i][0]; }
static double **kept;
static void stash(double **t) { kept = t; }
static void poke(void) { kept[1] = kept[0]; }
void f(double **q, int n, int m) {
  double **t = malloc(n * sizeof(double *));
  for (int i = 0; i < n; i++)
    t[i] = malloc(m * sizeof(double));
  AFTER
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      t[i][k] = t[i][k] + 1.0;
}
"""


def _row_loop_parallel(after: str) -> bool:
    facts = analyze_text(_TEXT.replace("AFTER", after)).facts
    return next(f for f in facts if f.loop.line == 21).parallel


@pytest.mark.parametrize(
    "after",
    [
        "memcpy(&t[1], &t[0], sizeof t[0]);",  # a row slot copied over another
        "memmove(t + 1, t, 2 * sizeof *t);",  # the slots shifted: two on one row
        "memcpy(q, t, n * sizeof *t);",  # `q` holds the same rows now
        "hook(t, n);",  # an unseen function
        "fp(t, n);",  # a function pointer kept in a global
        "struct holder h = {t}; hold(&h);",  # a field keeps the table
        "struct holder h; h.rows = t; hold(&h);",
        "stash(t); poke();",  # a function of the file keeps it, another re-points
    ],
)
def test_a_table_handed_to_code_that_may_repoint_rows_loses_them(after: str) -> None:
    assert not _row_loop_parallel(after)


@pytest.mark.parametrize(
    "after",
    [
        "",
        "qsort(t, n, sizeof *t, cmp);",  # the same rows, reordered
        "(void)peek(t, 0);",  # a function of the file that only reads rows
        "hook_row(t[0], m);",  # a row, not its slot
        "hook_row(&t[1][0], m);",  # an element's address
        "free(t[0]); t[0] = malloc(m * sizeof(double));",
    ],
)
def test_a_table_whose_slots_stay_put_keeps_them(after: str) -> None:
    assert _row_loop_parallel(after)


def test_a_sort_the_file_defines_may_repoint_rows() -> None:
    own = (
        "static void qsort(double **t, int n, unsigned long w, "
        "int (*c)(const void *, const void *)) { (void)n; (void)w; (void)c; "
        "t[1] = t[0]; }\nvoid f("
    )
    text = _TEXT.replace("#include <stdlib.h>", "void *malloc(unsigned long);")
    text = text.replace("void f(", own, 1).replace("AFTER", "qsort(t, n, 8, cmp);")
    facts = analyze_text(text).facts
    assert not next(f for f in facts if f.loop.line == 22).parallel  # one line on


def test_a_function_handing_rows_on_stores_no_slot() -> None:
    # `sweep` passes each row to `hook_row`, which may keep it, but stores no
    # slot of `t`: the rows stay apart (that a row may be kept is `leaves`)
    sweep = "static void sweep(double **t, int n, int m) {\n"
    sweep += "  for (int i = 0; i < n; i++) hook_row(t[i], m);\n}\nvoid f("
    text = _TEXT.replace("void f(", sweep, 1).replace("AFTER", "sweep(t, n, m);")
    facts = analyze_text(text).facts
    assert next(f for f in facts if f.loop.line == 24).parallel  # three lines on
