"""A call passing two locals its caller swaps in turn passes two distinct objects.

harm_blind3 `k02` and `k15`: `stream(a, b)` in a time loop, `a` and `b` two
blocks `main` allocated and swaps after each step (`t = a; a = b; b = t;`),
left the kernel's `src` and `dst` "may overlap". Between the swap's
statements the two hold the two blocks in one order or the other: apart.
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

KERNEL = """\
#include <stdlib.h>
#define NX 4096
static void stream(const double *src, double *dst) {
  for (int x = 0; x < NX; x++) dst[x] = src[(x + NX - 1) % NX];
}
"""


def _kernel_pragma(main: str) -> str | None:
    src = KERNEL + dedent(main)
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(src, "k.c", settings).suggestions
    return found[0].pragma.render() if found[0].pragma is not None else None


def test_two_allocations_swapped_after_each_step_are_apart() -> None:
    got = _kernel_pragma(
        """\
        int main(void) {
          double *a = malloc(NX * sizeof(double));
          double *b = malloc(NX * sizeof(double));
          for (int t = 0; t < 20; t++) {
            stream(a, b);
            double *tmp = a;
            a = b;
            b = tmp;
          }
          free(a);
          free(b);
          return 0;
        }
        """
    )
    assert got is not None


def test_parameters_swapped_by_the_caller_are_apart_when_its_callers_pass_apart() -> (
    None
):
    got = _kernel_pragma(
        """\
        static void run(double *u, double *v) {
          double *a = u, *b = v;
          for (int t = 0; t < 20; t++) {
            stream(a, b);
            double *tmp = a;
            a = b;
            b = tmp;
          }
        }
        int main(void) {
          double *p = malloc(NX * sizeof(double));
          double *q = malloc(NX * sizeof(double));
          run(p, q);
          return 0;
        }
        """
    )
    assert got is not None


@pytest.mark.parametrize(
    "steps",
    [
        # a half swap: after the first step both hold the first block
        "stream(a, b);\n    a = b;",
        # the second pointer is set from the first
        "stream(a, b);\n    double *tmp = a;\n    a = b;\n    b = tmp + 1;",
    ],
)
def test_other_rotations_stay_refused(steps: str) -> None:
    got = _kernel_pragma(
        f"""\
        int main(void) {{
          double *a = malloc(NX * sizeof(double));
          double *b = malloc(NX * sizeof(double));
          for (int t = 0; t < 20; t++) {{
            {steps}
          }}
          return 0;
        }}
        """
    )
    assert got is None
