"""GNU `asm` statements: output operands are writes, a "memory" clobber writes anything.

`__asm__("incq %0" : "+m"(counter))` in a loop updates a shared counter; the
walk read the operands as plain expressions (reads only), and the loop got
`parallel for` (found by harm blind batch 14, `d14_asm_counters.c`). A
`"memory"` clobber is a call of unknown effects, in the loop or in a callee. Its
twin, whose `asm` writes only a scalar declared in the body, stays parallel.
"""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text

_TEXT = """
#define N 1000
static double a[N + 1], b[N];
static long counter;
void shared_counter(void) {
  for (int i = 0; i < N; i++) {
    b[i] = a[i] * 2;
    __asm__ volatile("incq %0" : "+m"(counter));
  }
}
long register_total(void) {
  long c = 0;
  for (int i = 0; i < N; i++) {
    b[i] += a[i];
    __asm__("addq $1, %0" : "+r"(c));
  }
  return c;
}
void written_element(void) {
  for (int i = 0; i < N; i++)
    __asm__("movsd %1, %0" : "=x"(b[i / 2]) : "x"(a[i]));
}
void memory_clobber(double *p) {
  for (int i = 0; i < N; i++) {
    b[i] = a[i];
    __asm__ volatile("" : : "r"(p) : "memory");
  }
}
static void fence(void) { __asm__ volatile("incq %0" : : "m"(counter) : "memory"); }
void callee_clobber(void) {
  for (int i = 0; i < N; i++) {
    b[i] = a[i];
    fence();
  }
}
void local_output(void) {
  for (int i = 0; i < N; i++) {
    double t;
    __asm__("movsd %1, %0" : "=x"(t) : "m"(a[i + 1]));
    b[i] = t;
  }
}
"""


def _facts() -> dict[str, LoopFacts]:
    analysis = analyze_text(_TEXT, options=AnalysisOptions(dialect="omp"))
    return {f.loop.function or "": f for f in analysis.facts}


@pytest.mark.parametrize(
    "name",
    [
        "shared_counter",
        "register_total",
        "written_element",
        "memory_clobber",
        "callee_clobber",
    ],
)
def test_an_asm_write_keeps_the_loop_serial(name: str) -> None:
    assert not _facts()[name].parallel


def test_an_asm_writing_a_body_local_is_still_parallel() -> None:
    assert _facts()["local_output"].parallel
