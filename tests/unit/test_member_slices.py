"""A struct pointer parameter used only through its members is the element `p[0]`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#define N 4000
struct body { double x, v, k; double hist[4]; struct { double a, b; } pos;
              double *data; struct body *next; };
static struct body ens[N];
static struct body *keep;
static double energy(const struct body *p) { return p->v * p->v + p->k * p->x; }
static void nudge(struct body *p) { p->v *= 0.5; }
static void ahead(struct body *p) { p[1].x = 0.0; }
CALLEE
void run(void) {
  for (int i = 0; i < N - 1; i++) BODY;
}
"""


def _last(callee: str, body: str):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("CALLEE", callee).replace("BODY", body)
    facts = analyze_text(text).facts
    return max(facts, key=lambda f: f.loop.line)


_OWN = [
    "static void f(struct body *p, double h) { p->x += h * p->v; p->v -= h * p->k; }",
    "static void f(struct body *p, double h) { p->hist[2] = h; p->pos.a += p->pos.b; }",
    # handed on whole to functions of the file that use it the same way
    "static void f(struct body *p, double h) { p->x += h * energy(p); nudge(p); }",
]


@pytest.mark.parametrize("callee", _OWN)
@pytest.mark.parametrize("arg", ["&ens[i]", "ens + i"])
def test_a_callee_on_its_own_element_is_parallel(callee: str, arg: str) -> None:
    fact = _last(callee, f"f({arg}, 0.01)")
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    ("callee", "arg"),
    [
        # through a pointer member: the memory lies elsewhere
        ("static void f(struct body *p, double h) { p->next->x = h; }", "&ens[i]"),
        ("static void f(struct body *p, double h) { p->data[0] = h; }", "&ens[i]"),
        (
            "static void f(struct body *p, double h) { double *q = p->data; *q = h; }",
            "&ens[i]",
        ),
        # the next element, directly or in a function it is handed to
        ("static void f(struct body *p, double h) { p->x = p[1].x + h; }", "&ens[i]"),
        ("static void f(struct body *p, double h) { p->x = h; ahead(p); }", "&ens[i]"),
        # stored where others reach it
        ("static void f(struct body *p, double h) { p->x = h; keep = p; }", "&ens[i]"),
        # elements that two iterations share
        ("static void f(struct body *p, double h) { p->x += h; }", "&ens[i / 2]"),
        ("static void f(struct body *p, double h) { p->x += h; }", "&ens[0]"),
    ],
)
def test_a_callee_reaching_beyond_its_element_stays_serial(
    callee: str, arg: str
) -> None:
    assert not _last(callee, f"f({arg}, 0.01)").parallel
