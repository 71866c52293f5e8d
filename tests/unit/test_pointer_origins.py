"""A local pointer set once from array objects reaches only them.

`const double *o = &src[5];` before `dst[p] = o[p % 4]`: `o` points into `src`,
never into `dst`, so the loop is parallel. The pointer set from `dst` itself,
set twice, set from a parameter, a table of pointers or a call, or with its
address taken, proves nothing.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze_text

_TEXT = """\
#include <stdlib.h>
double src[100], dst[100], other[100];
double *rows[4];
double *pick(void);
void run(const double *param, int c) {
  SETUP
  for (int p = 0; p < 90; p++) {
    dst[p] = o[p % 4] * 2.0;
  }
}
"""


def _parallel(setup: str, text: str = _TEXT) -> bool:
    text = text.replace("SETUP", dedent(setup).strip())
    fact = next(f for f in analyze_text(text, "t.c").facts if f.loop.var == "p")
    return fact.parallel


@pytest.mark.parametrize(
    "setup",
    [
        "const double *o = &src[5];",
        "const double *o = src + 5;",
        "const double *q = &src[c];\n  const double *o = q + 1;",
    ],
    ids=["address of an element", "array plus offset", "copy of another local"],
)
def test_a_pointer_set_once_from_another_array_is_apart(setup: str) -> None:
    assert _parallel(setup)


@pytest.mark.parametrize(
    "setup",
    [
        "const double *o = &dst[5];",
        "const double *o = src;\n  if (c) o = dst;",
        "const double *o = param;",
        "const double *o = rows[2];",
        "const double *o = pick();",
        "const double *o = src;\n  const double **h = &o;\n  *h = dst;",
        "const double *o = (const double *)(long)c;",
    ],
    ids=[
        "into the written array",
        "set twice",
        "a parameter",
        "a table",
        "a call",
        "address taken",
        "an integer made an address",
    ],
)
def test_a_pointer_that_may_reach_the_written_array_proves_nothing(setup: str) -> None:
    assert not _parallel(setup)


def test_an_array_parameter_is_a_pointer_on_either_side() -> None:
    """`run(double out[100])` may be called with `src`; `o` from `in[]` too."""
    into_param = _TEXT.replace("dst[p]", "out[p]").replace(
        "const double *param,", "const double *param, double out[100],"
    )
    assert not _parallel("const double *o = &src[5];", into_param)
    from_param = _TEXT.replace("const double *param,", "const double in[100],")
    assert not _parallel("const double *o = &in[5];", from_param)
