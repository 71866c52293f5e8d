"""A local pointer set once from a cast of a parameter stands for that parameter."""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text

KERNEL = """
#include <stdlib.h>
#define N 100
static unsigned sums(const double *v, unsigned *out, int n) {
  const unsigned char *bytes = (const unsigned char *)v;
  unsigned total = 0;
  for (int i = 0; i < n; i++) {
    out[i] = bytes[8 * i] + 31u * bytes[8 * i + 7];
    total += out[i];
  }
  return total;
}
"""


def _facts(main: str) -> LoopFacts:
    found = analyze_text(KERNEL + main).facts
    (fact,) = [f for f in found if f.loop.function == "sums"]
    return fact


def test_cast_copy_of_a_parameter_apart_at_every_call() -> None:
    fact = _facts("""
    int main(void) {
      double *v = malloc(sizeof(double) * N);
      unsigned *s = malloc(sizeof(unsigned) * N);
      return (int)sums(v, s, N);
    }
    """)
    assert fact.parallel, [o.message for o in fact.obstacles]


def test_a_call_passing_one_buffer_twice_stays_refused() -> None:
    fact = _facts("""
    int main(void) {
      double *v = malloc(sizeof(double) * N);
      return (int)sums(v, (unsigned *)v, N);
    }
    """)
    assert not fact.parallel
