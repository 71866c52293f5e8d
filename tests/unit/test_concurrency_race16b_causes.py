"""Causes behind the race blind batches' misses fixed in round race16b, one each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file


def _errors(src: str) -> list[tuple[str, int]]:
    found = check_file(textwrap.dedent(src), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


_HANDOFF = """\
    typedef struct { double data[1000]; int ready; } channel_t;
    static channel_t chan;
    static void produce(channel_t *c, int lo, int hi) {
      for (int i = lo; i < hi; i++)
        c->data[i] = 0.5 * i;
    }
    static double consume(const channel_t *c, int n) {
      double s = 0.0;
      for (int i = 0; i < n; i++)
        s += c->data[i];
      return s;
    }
    double run(int n) {
      double result = 0.0;
      #pragma omp parallel sections num_threads(2)
      {
        #pragma omp section
        {
          produce(&chan, 0, n / 2);
          {early}
          #pragma omp atomic write release
          chan.ready = 1;
          {late}
        }
        #pragma omp section
        {
          int seen = 0;
          while (!seen) {
            #pragma omp atomic read acquire
            seen = chan.ready;
          }
          result = consume(&chan, n);
        }
      }
      return result;
    }
"""


def test_a_quotient_argument_bounds_the_callees_sweep() -> None:
    second = "produce(&chan, n / 2, n);"
    # the flag is raised after the whole buffer is written: the hand-off orders it
    clean = _HANDOFF.replace("{early}", second).replace("{late}", "")
    assert _errors(clean) == []
    # raised after the first half only: the second half races with the reader
    racy = _HANDOFF.replace("{early}", "").replace("{late}", second)
    assert [code for code, _ in _errors(racy)] == ["ACC124"]


_HALVES = """\
    static void fill(double *a, int lo, int hi) {
      for (int i = lo; i < hi; i++)
        a[i] = 2.0 * i;
    }
    void run(double *a, int n) {
      #pragma omp parallel sections
      {
        #pragma omp section
        fill(a, 0, {split});
        #pragma omp section
        fill(a, n / 2, n);
      }
    }
"""


def _codes(src: str) -> list[str]:
    return [f.code for f in check_file(textwrap.dedent(src), "t.c")]


def test_halves_split_by_one_quotient_are_disjoint() -> None:
    assert _codes(_HALVES.replace("{split}", "n / 2")) == []
    # one element shared when `n / 2 + 1 <= n`: the extent of `a` decides
    assert _codes(_HALVES.replace("{split}", "n / 2 + 1")) == ["ACC123"]
