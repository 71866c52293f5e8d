"""A summarised function passing a global table to a callee that only reads it.

`lookup(v) { k = bracket(tx, NT, v); ... }`: `bracket` reads through its first
parameter, so `lookup` reads the global `tx`, as if it indexed it itself. The
loop calling `lookup` is parallel unless it writes `tx`; a callee writing
through a global argument leaves the function unsummarised.
"""

from __future__ import annotations

from accls.analysis import analyze_text
from accls.analysis.obstacles import PURE_FUNCTIONS
from accls.analysis.summaries import summarize
from accls.frontend import parse_source

_TEXT = """\
static double tx[100], ty[100], q[100], out[100];
static int bracket(const double *x, int n, double v) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (x[mid] <= v) lo = mid; else hi = mid;
  }
  return lo;
}
static void put(double *x, double v) { x[0] = v; }
static double lookup(double v) { int k = bracket(tx, 100, v); return ty[k]; }
static double store(double v) { put(tx, v); return v; }
void run(void) {
  for (int i = 0; i < 100; i++) { out[i] = lookup(q[i]); }
  for (int i = 0; i < 100; i++) { tx[i] = lookup(q[i]); }
  for (int i = 0; i < 100; i++) { out[i] = store(q[i]); }
}
"""


def test_a_global_passed_to_a_reader_is_a_global_read() -> None:
    summary = summarize("lookup", parse_source(_TEXT, "t.c"), PURE_FUNCTIONS)
    assert summary is not None
    assert summary.globals_read == {"tx", "ty"}
    assert not summary.writes
    assert summarize("store", parse_source(_TEXT, "t.c"), PURE_FUNCTIONS) is None


def test_loops_calling_it_are_parallel_unless_they_write_the_table() -> None:
    facts = [f for f in analyze_text(_TEXT, "t.c").facts if f.loop.function == "run"]
    assert [f.parallel for f in facts] == [True, False, False]
