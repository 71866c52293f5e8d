"""A callee's loop with literal bounds over its pointer gives the slice it touches."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

HEAD = """\
static void set8(double *p, double s) { for (int j = 0; j < 8; j++) p[j] = s * j; }
static void arr8(double p[], double s) { for (int j = 0; j < 8; ++j) p[j] = s; }
static void down8(double *p) { for (int j = 7; j >= 0; j--) p[j] = 1.0; }
static void odd4(double *p) { for (int j = 0; j < 4; j++) p[2 * j + 1] = 0.0; }
static void all8(double *p) { for (int j = 0; j <= 8; j++) p[j] = 0.0; }
static void upto(double *p, int m) { for (int j = 0; j < m; j++) p[j] = 0.0; }
static void skip8(double *p) { for (int j = 0; j < 8; j++) { p[j] = 0.0; j++; } }
int pick(void);
static void hide8(double *p) {
  for (int j = 0; j < 8; j++) { int j = pick(); p[j] = 0.0; }
}
static void bump(int *j) { *j += 4; }
static void kept8(double *p) { for (int j = 0; j < 8; j++) { bump(&j); p[j] = 0.0; } }
void run(int n, double *restrict a, double *restrict b) {
  for (int i = 0; i < n; i++) {
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
        ("set8(&a[8 * i], b[i]);", "`a[8 * i + [0, 7]]`"),
        ("arr8(&a[8 * i], b[i]);", "`a[8 * i + [0, 7]]`"),
        ("down8(a + 8 * i);", "`a[8*i + [0, 7]]`"),
        ("odd4(&a[8 * i]);", "`a[8 * i + [1, 7]]`"),
        # the only call passes 8: `m` lies in [8, 8] (param_ranges)
        ("upto(&a[8 * i], 8);", "`a[8 * i + [0, 7]]`"),
    ],
)
def test_a_counted_write_of_the_iteration_own_slice_is_parallel(
    body: str, slice_: str
) -> None:
    ok, why = _verdict(body)
    assert ok, why
    assert f"writes only the row {slice_}" in why


@pytest.mark.parametrize(
    "body",
    [
        "all8(&a[8 * i]);",  # `j <= 8` writes the next iteration's first element
        "upto(&a[8 * i], 9);",  # the count every call passes reaches the next
        "skip8(&a[8 * i]);",  # the body moves the counter
        "hide8(&a[8 * i]);",  # another `j` inside the loop
        "kept8(&a[8 * i]);",  # the counter's address is taken
        "set8(&a[4 * i], b[i]);",  # eight elements, four apart
    ],
)
def test_a_counted_write_beyond_the_iteration_own_slice_is_refused(
    body: str,
) -> None:
    ok, why = _verdict(body)
    assert not ok, why


@pytest.mark.parametrize(
    ("callee", "call", "slice_"),
    [
        (
            "for (int j = 0; j < 8; j += 3) p[j] = 1.0;",
            "f(&a[7 * i]);",
            "7 * i + [0, 6]",
        ),
        (
            "for (int j = 9; j > 0; j -= 3) p[j] = 1.0;",
            "f(&a[9 * i]);",
            "9 * i + [3, 9]",
        ),
    ],
)
def test_a_stepped_counter_ends_where_the_step_stops(
    callee: str, call: str, slice_: str
) -> None:
    text = HEAD.replace(
        "void run(", f"static void f(double *p) {{ {callee} }}\nvoid run("
    )
    found = analyze_text(text + f"    {call}\n  }}\n}}\n")
    loop = next(f for f in found.facts if f.loop.var == "i")
    why = " ".join([*(o.message for o in loop.obstacles), *loop.call_effects])
    assert loop.parallel, why
    assert f"`a[{slice_}]`" in why
