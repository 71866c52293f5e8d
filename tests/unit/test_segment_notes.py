"""Segment loops: a refusal names the count that would need a bound, and no more."""

from __future__ import annotations

from accls.analysis import analyze_text
from accls.analysis.model import LoopFacts

_HEADER = """
#define MAXATOMS 64
typedef double real3[3];
typedef struct { int nLocalBoxes; int *nAtoms; } Boxes;
"""

# CoMD's shape: the atoms of box `iBox` sit from MAXATOMS*iBox on, nAtoms[iBox]
# of them; nothing in the program keeps that count within MAXATOMS.
_COUNTED = (
    _HEADER
    + """
void scale(Boxes *boxes, real3 *p, double f) {
  for (int iBox = 0; iBox < boxes->nLocalBoxes; ++iBox) {
    for (int iOff = MAXATOMS*iBox, ii = 0; ii < boxes->nAtoms[iBox]; ++ii, ++iOff) {
      p[iOff][0] *= f;
      p[iOff][1] *= f;
    }
  }
}
"""
)

_LOCAL_COUNT = (
    _HEADER
    + """
void shift(Boxes *boxes, double *u, double f) {
  for (int iBox = 0; iBox < boxes->nLocalBoxes; iBox++) {
    int n = boxes->nAtoms[iBox];
    for (int iOff = MAXATOMS*iBox; iOff < MAXATOMS*iBox + n; iOff++)
      u[iOff] += f;
  }
}
"""
)


def _outer(text: str) -> LoopFacts:
    facts = analyze_text(text).facts
    return next(f for f in facts if f.loop.var == "iBox")


def test_a_count_read_from_memory_is_named_with_the_stride_it_would_need() -> None:
    outer = _outer(_COUNTED)
    assert not outer.parallel
    notes = [o.message for o in outer.obstacles if "stay apart only if" in o.message]
    assert notes
    assert (
        "iterations of `iBox` start `MAXATOMS` (64) elements apart and each reaches "
        "`boxes->nAtoms[iBox]` of them (the values of `ii`, line 8): they stay "
        "apart only if `boxes->nAtoms[iBox]` never exceeds `MAXATOMS` (64)"
    ) in notes[0]


def test_a_count_held_in_a_local_is_the_width_of_the_bounds() -> None:
    outer = _outer(_LOCAL_COUNT)
    assert not outer.parallel
    notes = [o.message for o in outer.obstacles if "stay apart only if" in o.message]
    assert notes
    assert "each reaches `n` of them (the values of `iOff`, line 9)" in notes[0]


def test_a_shifted_read_collides_whatever_the_count_and_gets_no_note() -> None:
    # `u[iOff + 1]` of the last atom is the next box's first even with n <= 64.
    text = _LOCAL_COUNT.replace("u[iOff] += f;", "u[iOff] += u[iOff + 1] * f;")
    outer = _outer(text)
    assert not outer.parallel
    assert not [o for o in outer.obstacles if "stay apart only if" in o.message]


def test_a_fixed_count_within_the_stride_is_parallel() -> None:
    text = _LOCAL_COUNT.replace("MAXATOMS*iBox + n;", "MAXATOMS*iBox + MAXATOMS;")
    assert _outer(text).parallel


def test_a_count_past_the_stride_stays_refused() -> None:
    text = _LOCAL_COUNT.replace("MAXATOMS*iBox + n;", "MAXATOMS*iBox + MAXATOMS + 1;")
    outer = _outer(text)
    assert not outer.parallel


_FIXED = """
#define MAXATOMS 64
#define SMALL 32
void fill(int nb, double *u, double f) {
  for (int iBox = 0; iBox < nb; iBox++)
    for (int iOff = STRIDE*iBox; iOff < STRIDE*iBox + WIDTH; iOff++)
      u[iOff] += f;
}
"""


def _fixed(stride: str, width: str) -> LoopFacts:
    return _outer(_FIXED.replace("STRIDE", stride).replace("WIDTH", width))


def test_a_macro_stride_and_a_literal_width_of_its_value_are_apart() -> None:
    # `MAXATOMS*iBox + 64`: the macro's value bounds the offset's rows.
    assert _fixed("MAXATOMS", "64").parallel
    assert _fixed("MAXATOMS", "63").parallel


def test_a_literal_width_past_the_macro_stride_overlaps() -> None:
    assert not _fixed("MAXATOMS", "65").parallel
    assert not _fixed("SMALL", "64").parallel


def test_a_window_past_the_stride_leaves_the_inner_loop_parallel() -> None:
    # The outer iterations overlap; within one, each `iOff` is its own element.
    facts = analyze_text(_FIXED.replace("STRIDE", "SMALL").replace("WIDTH", "64")).facts
    inner = next(f for f in facts if f.loop.var == "iOff")
    assert inner.parallel


def test_a_count_read_per_box_in_the_bound_is_named() -> None:
    text = (
        "#define MAXATOMS 64\n"
        "void f(int nb, double *u, const int *count) {\n"
        "  for (int iBox = 0; iBox < nb; iBox++)\n"
        "    for (int iOff = MAXATOMS*iBox; iOff < MAXATOMS*iBox + count[iBox];"
        " iOff++)\n"
        "      u[iOff] += 1.0;\n"
        "}\n"
    )
    outer = _outer(text)
    assert not outer.parallel
    notes = [o.message for o in outer.obstacles if "stay apart only if" in o.message]
    assert notes
    assert "only if `count[iBox]` never exceeds `MAXATOMS` (64)" in notes[0]
