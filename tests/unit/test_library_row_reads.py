"""Library copies into and out of a row from a column: `memmove(&r[i][1], ..)`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text
from accls.analysis.callee_rows import extent_value

HEAD = """\
#include <string.h>
#define W 16
static double rows[64][W + 1], out[64][W + 2];
void run(int n, int k) {
  for (int i = 0; i < n; i++) {
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n  }}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run")
    reasons = " ".join([*(o.message for o in loop.obstacles), *loop.call_effects])
    return loop.parallel, reasons


@pytest.mark.parametrize(
    "body",
    [
        # The row shifted by one in place: W elements from column 1 fill W + 1.
        "memmove(&rows[i][1], &rows[i][0], W * sizeof(double));",
        "memcpy(&rows[i][1], out[i], W * sizeof rows[i][0]);",
        # A read from column 1 that stays in the row, beside a write of it.
        "memcpy(&out[i][0], &rows[i][1], W * sizeof(double)); rows[i][0] = 0;",
        "memcpy(out[i], rows[i], (W + 1) * sizeof(double)); rows[i][0] = 0;",
    ],
)
def test_a_copy_that_fits_the_row_from_its_column_is_the_rows(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why
    assert "only the row `rows[i]`" in why or "reads only `rows[i]`" in why


@pytest.mark.parametrize(
    "body",
    [
        # From column 2, W + 1 elements reach the next row's first.
        "memmove(&rows[i][2], &rows[i][0], W * sizeof(double));",
        "memcpy(&rows[i][1], out[i], (W + 1) * sizeof(double));",
        # The read runs on into row i + 1, which iteration i + 1 writes.
        "memcpy(&out[i][0], &rows[i][1], (W + 1) * sizeof(double)); rows[i][0] = 0;",
        "memcpy(out[i], rows[i], sizeof out[i]); rows[i][0] = 0;",
        # A column that varies: where the copy starts is not known.
        "memmove(&rows[i][k], &rows[i][0], 2 * sizeof(double));",
        "memcpy(&out[i][0], &rows[i][k], 2 * sizeof(double)); rows[i][0] = 0;",
    ],
)
def test_a_copy_that_may_leave_the_row_is_refused(body: str) -> None:
    parallel, why = _verdict(body)
    assert not parallel, why


def test_a_copy_that_reads_the_next_row_is_a_dependence() -> None:
    src = HEAD.replace("i < n", "i < n - 1") + (
        "    memmove(&rows[i][1], &rows[i + 1][0], W * sizeof(double));\n  }\n}\n"
    )
    loop = next(f for f in analyze_text(src).facts if f.loop.function == "run")
    assert not loop.parallel
    assert any("rows" in o.message for o in loop.obstacles)


@pytest.mark.parametrize(
    ("text", "value"),
    [("W + 1", 17), ("(2 * W)", 32), ("W", 16), ("W - 20", None), ("W / 2", None)],
)
def test_an_extent_of_macros_is_a_number_without_division(
    text: str, value: int | None
) -> None:
    assert extent_value(text, {"W": 16}) == value
