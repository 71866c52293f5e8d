"""Pointer fields of a local struct carved from one block (`v.x = buf; v.y = buf + n`).

A field counts as a pointer set once only when nothing else can change it:
no `&v` or `&v.x`, no whole assignment, no union, one assignment before the
loop. Otherwise the pair stays an alias obstacle.
"""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze_text
from accls.analysis.model import ObstacleCode

_SRC = """
#include <stdlib.h>
struct pair { double *x, *y; };
union both { double *x; double *y; };
void take(double **);
void keep(struct pair *);
void f(int n, struct pair w) {
  TYPE v;
  double *buf = malloc(2 * (size_t)n * sizeof(double));
  v.x = buf;
  v.y = buf + SPLIT;
  BEFORE
  for (int i = 0; i < n; i++)
    v.y[i] = 2.0 * v.x[i];
  free(buf);
}
"""


def _aliases(
    split: str = "n", before: str = "", type_: str = "struct pair"
) -> list[str]:
    text = _SRC.replace("SPLIT", split).replace("BEFORE", before)
    facts = analyze_text(dedent(text.replace("TYPE", type_))).facts
    loop = next(f for f in facts if f.loop.span.line == 13)
    return [o.message for o in loop.obstacles if o.code == ObstacleCode.ALIAS]


def test_fields_set_to_apart_halves_are_apart() -> None:
    assert _aliases() == []


def test_fields_overlapping_by_one_are_refused() -> None:
    assert _aliases(split="n - 1")


def test_a_field_whose_address_is_taken_is_refused() -> None:
    assert _aliases(before="take(&v.x);")


def test_a_struct_whose_address_is_taken_is_refused() -> None:
    assert _aliases(before="keep(&v);")


def test_a_struct_assigned_whole_is_refused() -> None:
    assert _aliases(before="if (n > 8) v = w;")


def test_a_field_set_again_under_a_condition_is_refused() -> None:
    assert _aliases(before="if (n > 8) v.y = buf + 1;")


def test_a_field_stepped_is_refused() -> None:
    assert _aliases(before="v.y--;")


def test_members_of_a_union_are_refused() -> None:
    assert _aliases(type_="union both")
