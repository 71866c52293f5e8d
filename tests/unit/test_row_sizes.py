"""Library calls on rows: a row write only when the size stays in the row."""

from __future__ import annotations

from pathlib import Path

import pytest
from accls.analysis import analyze_text

HEAD = """\
#include <stdlib.h>
#include <string.h>
#define M 64
int cmp(const void *a, const void *b) { return *(const long *)a > *(const long *)b; }
void run(double a[][M], double b[][M], long c[][M], char s[][M], int n) {
  for (int i = 0; i < n; i++)
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run")
    reasons = " ".join([*(o.message for o in loop.obstacles), *loop.call_effects])
    return loop.parallel, reasons


@pytest.mark.parametrize(
    "body",
    [
        "memset(a[i], 0, sizeof a[i]);",
        "memset(a[i], 0, sizeof(a[i]));",
        "memcpy(a[i], b[i], M * sizeof(double));",
        "memcpy(a[i], b[i], sizeof(double) * M);",
        "memcpy(&a[i][0], &b[i][0], M * sizeof a[i][0]);",
        "memmove(a[i], b[i], 32 * sizeof *a[i]);",
        # Parentheses that close before the end are not around the whole size.
        "memcpy(a[i], b[i], (M) * sizeof(double));",
        "qsort(c[i], M, sizeof(long), cmp);",
        "qsort(&c[i][0], M, sizeof c[i][0], cmp);",
    ],
)
def test_a_call_sized_to_the_row_writes_only_the_row(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why
    assert "writes only the row" in why


@pytest.mark.parametrize(
    "body",
    [
        "memcpy(a[i], b[i], 2 * M * sizeof(double));",  # two rows
        "memset(a[i], 0, sizeof a);",  # the whole array from row i on
        "memcpy(a[i], b[i], (M + 1) * sizeof(double));",
        "memset(a[i], 0, 65 * sizeof(double));",
        "memset(a[i], 0, M * sizeof(long double));",  # a wider element
        "qsort(c[i], 2 * M, sizeof(long), cmp);",
        'strcpy(s[i], "text");',  # no bound at all
    ],
)
def test_a_call_that_may_pass_the_row_is_refused(body: str) -> None:
    parallel, why = _verdict(body)
    assert not parallel
    assert "shared by the iterations" in why


def test_the_fixture_rows_are_parallel_on_the_host() -> None:
    path = Path(__file__).parents[1] / "fixtures" / "c" / "row_library_calls.c"
    found = analyze_text(path.read_text(encoding="utf-8"), str(path)).facts
    verdicts = {
        f.loop.line: f.parallel
        for f in found
        if f.loop.function in ("rows", "clear", "spill")
    }
    assert verdicts == {30: True, 32: True, 38: True, 45: False}


def test_a_flat_range_is_not_called_a_row() -> None:
    # `&a[i * m]` of a flat array is no row of an array of arrays: the range
    # the size gives is modelled instead (range_arguments), and rows of `m`
    # apart are disjoint.
    text = (
        "#include <string.h>\n"
        "void run(double *a, int n, int m) {\n"
        "  for (int i = 0; i < n; i++)\n"
        "    memset(&a[i * m], 0, m * sizeof(double));\n}\n"
    )
    found = analyze_text(text).facts
    why = " ".join([*(o.message for o in found[0].obstacles), *found[0].call_effects])
    assert found[0].parallel, why
    assert "fit in the row" not in why
    assert "`a[i * m + [0, m)]`" in why
