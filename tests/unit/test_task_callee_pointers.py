"""A task's callee sweeping a block through a pointer the region shares.

`double *x = s->x;` before the region, then `produce(x, 2 * h)` in one task and
`consume(x, h, 2 * h)` in another, their `depend` sections apart: the callee's
loop lands on the caller's `x` over bounds in the caller's names.
"""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_SRC = """\
    typedef struct { double *x; double lo, hi; int n; } sig_t;
    static void produce(double *x, int from, int to) {
      for (int i = from; i < to; i++)
        x[i] = (double)i;
    }
    static double consume(const double *x, int from, int to) {
      double s = 0.0;
      for (int i = from; i < to; i++)
        s += x[i];
      return s;
    }
    void pipeline(sig_t *s) {
      double *x = s->x;
      int h = s->n / 2;
      #pragma omp parallel
      #pragma omp single
      {
        #pragma omp task depend(out : x[0 : h])
        produce(x, 0, {end});
        #pragma omp task depend(in : x[h : h])
        s->hi = consume(x, h, 2 * h);
      }
    }
"""


def _errors(end: str) -> set[str]:
    src = textwrap.dedent(_SRC).replace("{end}", end)
    return {f.code for f in check_file(src, "t.c") if f.level.name == "ERROR"}


def test_a_callee_writing_past_its_depend_section_races() -> None:
    # the producer's loop runs to `2 * h`, over the consumer's `x[h:h]`
    assert _errors("2 * h") == {"ACC124"}


def test_a_callee_within_its_depend_section_does_not_race() -> None:
    assert _errors("h") == set()
