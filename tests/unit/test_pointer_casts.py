"""A pointer set from a pointer cast is not kept apart by its element type."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
float f[2048];
void widen(void) {
  double *q = VALUE;
  for (int i = 0; i < 1023; i++) f[2 * i + 2] = (float)q[i];
}
"""


def _loop(value: str):  # type: ignore[no-untyped-def]
    facts = analyze_text(dedent(_TEXT).replace("VALUE", value)).facts
    return next(f for f in facts if f.loop.var == "i")


def test_a_cast_pointer_may_overlap_an_array_of_another_type() -> None:
    fact = _loop("(double *)f")
    assert not fact.parallel
    # `q` is based on `f`: the reason says so, and no assumption lifts it.
    assert any("both are set from `f`" in o.message for o in fact.obstacles)
    assert not any(o.assumption for o in fact.obstacles)


def test_a_cast_of_an_address_counts_too() -> None:
    assert not _loop("(double *)&f[0]").parallel


def test_a_cast_allocation_is_its_own_block() -> None:
    fact = _loop("(double *)malloc(1024 * sizeof(double))")
    assert not any("pointer cast" in o.message for o in fact.obstacles)


_VOID = """
static void views(void *vp, int n) {
  double *p = vp;
  long *q = vp;
  for (int i = 1; i < n; i++) q[i] = (long)p[i - 1] + 1;
}
"""

_ARGUMENT = """
float f[2048];
static void widen(float *dst, const double *src) {
  for (int i = 0; i < 1023; i++) dst[2 * i + 2] = (float)src[i];
}
void run(void) { widen(f, ARG); }
"""


def test_two_views_of_one_void_pointer_may_overlap() -> None:
    facts = analyze_text(dedent(_VOID)).facts
    loop = next(f for f in facts if f.loop.var == "i")
    assert not loop.parallel


def test_a_parameter_passed_a_cast_may_overlap() -> None:
    text = dedent(_ARGUMENT)
    cast = analyze_text(text.replace("ARG", "(const double *)f")).facts
    assert not next(f for f in cast if f.loop.var == "i").parallel
    apart = analyze_text(text.replace("ARG", "0")).facts
    assert not any(
        "pointer cast" in o.message
        for f in apart
        if f.loop.var == "i"
        for o in f.obstacles
    )


_UNION = """
double store[1001];
union views { double *d; long *l; };
void bits(void) {
  union views u;
  u.d = store;
  long *l = u.l;
  for (int i = 1; i <= 1000; i++) store[i] = (double)(l[i - 1] & 7);
}
"""


def test_a_pointer_read_from_a_union_member_may_overlap() -> None:
    facts = analyze_text(dedent(_UNION)).facts
    assert not next(f for f in facts if f.loop.var == "i").parallel
