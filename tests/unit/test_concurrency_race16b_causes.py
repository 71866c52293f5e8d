"""Causes behind the race blind batches' misses fixed in round race16b, one each."""

from __future__ import annotations

import textwrap

from accls.analysis.checks import check_file
from accls.analysis.range_splitters import split_leaf
from accls.frontend import parse_source


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


_SPLIT = """\
    typedef struct { double *a; int n; } line_t;
    static void smooth(line_t *l, int lo, int hi) {
      double *a = l->a;
      for (int i = lo; i < hi; i++)
        a[i] = {update};
    }
    static void split(line_t *l, int lo, int hi, int depth) {
      if (depth == 0 || hi - lo <= 64) {
        smooth(l, lo, hi);
        return;
      }
      int mid = lo + (hi - lo) / 2;
      #pragma omp parallel sections
      {
        #pragma omp section
        split(l, lo, {left}, depth - 1);
        #pragma omp section
        split(l, mid, hi, depth - 1);
      }
    }
"""


def _split(update: str, left: str = "mid") -> str:
    return _SPLIT.replace("{update}", update).replace("{left}", left)


def test_a_range_splitting_recursion_reaches_its_leaf_over_the_range() -> None:
    # each half smooths its own elements: the halves never meet
    assert _codes(_split("0.5 * a[i]")) == []
    # the left half's last point reads `a[mid]`, which the right half writes
    assert [c for c, _ in _errors(_split("0.5 * (a[i] + a[i + 1])"))] == ["ACC124"]


def _leaf(src: str) -> tuple[str, tuple[str, ...]] | None:
    source = parse_source(textwrap.dedent(src))
    split = source.function("split")
    assert split is not None
    call = next(c for c in split.call_sites if c.name == "split")
    found = split_leaf(call, source)
    return None if found is None else (found.name, found.args)


def test_only_an_exact_split_is_unfolded() -> None:
    assert _leaf(_split("0.5 * a[i]")) == ("smooth", ("l", "lo", "mid"))
    # `mid + 1`: the parts overlap, and their union is not the leaf's range
    assert _leaf(_split("0.5 * a[i]", "mid + 1")) is None
    # the leaf's elements depend on `lo` beyond the loop bounds
    assert _leaf(_split("0.5 * a[i - lo]")) is None
    # a square over the range is no union of the parts' squares
    square = _split("0.5 * a[i]").replace(
        "a[i] = 0.5 * a[i];", "for (int j = lo; j < hi; j++) a[i] += a[j];"
    )
    assert _leaf(square) is None
    # a counter carried across the iterations: each part restarts it
    counted = _split("0.5 * a[k++]").replace("double *a", "int k = 0; double *a")
    assert _leaf(counted) is None
    # a task may outlive the call
    tasks = _split("0.5 * a[i]").replace("omp section\n", "omp task\n")
    assert _leaf(tasks.replace("parallel sections", "taskgroup")) is None
