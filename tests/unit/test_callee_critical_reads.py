"""A callee reading a shared element in a `critical` and storing it after."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file

_SRC = """\
    #define NB 16
    typedef struct { long bin[NB + 1]; } hist_t;
    static void tally(hist_t *h, int len) {
      long old;
      int b = len > NB ? NB : len;
      {body}
    }
    static void count(hist_t *h, const int *lens, int k) {
      int len = lens[k] * 2;
      tally(h, {arg});
    }
    void histogram(hist_t *h, const int *lens, int n) {
      #pragma omp parallel for
      for (int i = 0; i < n; i++) count(h, lens, i);
    }
"""

_READ_ONLY = """\
#pragma omp critical(hist)
  old = h->bin[b];
  h->bin[b] = old + 1;"""

_BOTH = """\
#pragma omp critical(hist)
  {
    old = h->bin[b];
    h->bin[b] = old + 1;
  }"""


def _errors(body: str, arg: str = "len") -> list[tuple[str, int]]:
    text = textwrap.dedent(_SRC).replace("{arg}", arg)
    found = check_file(text.replace("{body}", body), "t.c")
    return [(f.code, f.span.line) for f in found if f.level.name == "ERROR"]


def test_a_store_after_the_critical_read_races_two_calls_down() -> None:
    # the bin comes from the data (`lens[k]`), so iterations may share it
    assert _errors(_READ_ONLY) == [("ACC121", 8)]


def test_the_store_inside_the_critical_is_no_race() -> None:
    assert _errors(_BOTH) == []


def test_an_element_of_the_iterations_own_is_not_claimed() -> None:
    # `k` is the loop variable: each iteration stores its own element
    own = _READ_ONLY.replace("h->bin[b]", "h->bin[len]")
    assert _errors(own, arg="k") == []
    assert _errors(own) == [("ACC121", 8)]
