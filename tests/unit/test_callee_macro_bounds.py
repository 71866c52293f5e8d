"""A callee's loop bounded by an integer macro gives the slice it touches.

`op(&r[e * NP])` with `for (a = 0; a < NP; a++) r[a] = ..` in `op` writes
`r[e*NP]` to `r[e*NP + NP - 1]`, as with a literal bound: the slices of two
iterations are apart. One element more (`a <= NP`) overlaps the next slice,
and a macro defined twice with two values has no one value.
"""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#define NE 100
#define NP 7
double U[NE * NP + 1], R[NE * NP + 1];
static void op(const double *u, double *r) {
  for (int a = 0; a BOUND; a++)
    r[a] = 2.0 * u[a];
}
void f(void) {
  for (int e = 0; e < NE; e++)
    op(ARGS);
}
"""


def _parallel(bound: str, args: str, extra: str = "") -> bool:
    text = extra + _TEXT.replace("BOUND", bound).replace("ARGS", args)
    facts = analyze_text(text).facts
    return next(f for f in facts if f.loop.function == "f").parallel


@pytest.mark.parametrize("args", ["&U[e * NP], &R[e * NP]", "U + e * NP, R + e * NP"])
def test_slices_a_macro_bound_keeps_apart_are_parallel(args: str) -> None:
    assert _parallel("< NP", args)


def test_one_element_past_the_macro_overlaps_the_next_slice() -> None:
    assert not _parallel("<= NP", "U + e * NP, R + e * NP")


def test_a_macro_defined_with_two_values_bounds_nothing() -> None:
    twice = "#ifdef WIDE\n#define NQ 9\n#else\n#define NQ 7\n#endif\n"
    assert not _parallel("< NQ", "U + e * 7, R + e * 7", twice)


@pytest.mark.parametrize(
    "defines",
    [
        # the first value fits the stride, the other overlaps the next slice
        "#ifdef NARROW\n#define NQ 7\n#else\n#define NQ 9\n#endif\n",
        "#define NQ 7\n#undef NQ\n#define NQ 9\n",
    ],
)
def test_a_macro_whose_other_value_overlaps_bounds_nothing(defines: str) -> None:
    assert not _parallel("< NQ", "U + e * 7, R + e * 7", defines)


def test_a_macro_defined_twice_alike_keeps_its_value() -> None:
    assert _parallel("< NQ", "U + e * 7, R + e * 7", "#define NQ 7\n#define NQ  7\n")


_BY_PARAM = """
#define NE 100
#define NP 7
double U[NE * NP + 8], R[NE * NP + 8];
static void op(const double *u, double *r, int n) {
  for (int a = 0; a < n; a++)
    r[a] = 2.0 * u[a];
}
void f(void) {
  for (int e = 0; e < NE; e++)
    op(U + e * NP, R + e * NP, COUNT);
}
OTHER
"""


def _parallel_by_param(count: str, other: str = "") -> bool:
    text = _BY_PARAM.replace("COUNT", count).replace("OTHER", other)
    facts = analyze_text(text).facts
    return next(f for f in facts if f.loop.function == "f").parallel


def test_a_count_every_call_passes_within_the_slice_is_parallel() -> None:
    assert _parallel_by_param("NP")


def test_a_count_one_past_the_slice_overlaps() -> None:
    assert not _parallel_by_param("NP + 1")


def test_another_call_passing_more_widens_the_range() -> None:
    assert not _parallel_by_param("NP", "void g(void) { op(U, R, 2 * NP); }")
