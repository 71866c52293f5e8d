"""A local struct's pointer member set only from its own allocation: `deep.v`.

`struct field deep; deep.v = malloc(..)` with `deep` never copied whole, its
address never taken and `deep.v` only subscripted, freed or lent to `memcpy`
reaches a block no other name reaches: a loop writing `deep.v[i]` and reading
`cur.v` is parallel. A shallow copy (`memcpy(&old, &cur, ..)`, `old = deep`),
a copy of the pointer, or a store from another pointer keeps it refused.
"""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
#include <string.h>
struct field { double *v; double *w; int n; };
extern void keep(double *p);
void run(int n, double *q, int c) {
  struct field cur, deep, old;
  cur.n = n;
  cur.v = malloc(sizeof(double) * n);
  deep.n = n;
  deep.v = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) cur.v[i] = i;
  memcpy(deep.v, cur.v, sizeof(double) * n);
  SETUP
  for (int i = 1; i < n; i++)
    LOOP
  free(deep.v);
}
"""

_FROM_CUR = "deep.v[i - 1] = 0.5 * (cur.v[i - 1] + cur.v[i]);"


def _parallel(setup: str, loop: str = _FROM_CUR) -> bool:
    text = _TEXT.replace("SETUP", setup).replace("LOOP", loop)
    line = next(k for k, t in enumerate(text.splitlines(), 1) if "for (int i = 1" in t)
    return next(f for f in analyze_text(text).facts if f.loop.line == line).parallel


@pytest.mark.parametrize(
    "loop", [_FROM_CUR, "deep.v[i] = q[i - 1] + q[i];", "deep.v[i] += cur.v[i];"]
)
def test_a_member_that_is_a_block_of_its_own_is_apart(loop: str) -> None:
    assert _parallel("", loop)


@pytest.mark.parametrize(
    ("setup", "loop"),
    [
        # a copy of the struct holds the pointer too
        ("old = deep;", "deep.v[i] = old.v[i - 1] + 1.0;"),
        ("memcpy(&old, &deep, sizeof deep);", "deep.v[i] = old.v[i - 1] + 1.0;"),
        # the pointer copied, written through both names
        ("double *alias = deep.v;", "{ deep.v[i] = 1.0; alias[i - 1] += 2.0; }"),
        # set from another member, on every path or on one
        ("deep.v = cur.v + 1;", _FROM_CUR),
        ("if (c) deep.v = cur.v;", _FROM_CUR),
        # handed to code that may keep it and return it through `q`'s block
        ("keep(deep.v);", "deep.v[i] = q[i - 1] + 1.0;"),
        # another member points into the block
        ("deep.w = deep.v + n / 2;", "deep.v[i] = deep.w[i - 1] + 1.0;"),
        # its address taken, and a member set through the pointer
        ("struct field *p = &deep; p->v = cur.v;", _FROM_CUR),
    ],
)
def test_a_member_another_name_may_reach_stays_refused(setup: str, loop: str) -> None:
    assert not _parallel(setup, loop)


def test_a_shallow_copy_of_the_other_struct_stays_refused() -> None:
    # `old.v` is `cur.v`: writing one reads what another iteration wrote.
    setup = "memcpy(&old, &cur, sizeof cur);"
    assert not _parallel(setup, "cur.v[i] = 0.5 * (old.v[i - 1] + old.v[i]);")
