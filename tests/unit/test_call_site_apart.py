"""A pointer parameter is apart from a global array no call passes a pointer into."""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text

KERNEL = """
#include <stdlib.h>
#define N 1000
static double acc[N], other[N];
static %s void gather(double *out, int n) {
  %s
  for (int i = 0; i < n; i++) {
    out[i] = acc[i] * 2.0 + acc[n - 1 - i];
  }
}
"""


def _facts(calls: str, head: str = "", reassign: str = "") -> LoopFacts:
    text = KERNEL % (head, reassign) + calls
    (fact,) = [f for f in analyze_text(text).facts if f.loop.function == "gather"]
    return fact


def _reasons(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles]


def test_every_call_passes_an_allocated_block_or_another_global() -> None:
    fact = _facts("""
    int main(void) {
      double *buf = malloc(sizeof(double) * N);
      double local[N];
      gather(buf, N);
      gather(local, N);
      gather(other, N);
      free(buf);
      return 0;
    }
    """)
    assert fact.parallel, _reasons(fact)


def test_through_a_static_caller_that_passes_its_own_parameter() -> None:
    fact = _facts("""
    static void step(double *v) { gather(v, N); }
    int main(void) {
      double *buf = malloc(sizeof(double) * N);
      step(buf);
      free(buf);
      return 0;
    }
    """)
    assert fact.parallel, _reasons(fact)


def test_a_call_with_the_global_itself_stays_refused() -> None:
    fact = _facts("""
    int main(void) {
      double *buf = malloc(sizeof(double) * N);
      gather(buf, N);
      gather(acc + 1, N - 1);
      free(buf);
      return 0;
    }
    """)
    assert not fact.parallel


def test_a_caller_parameter_given_the_global_stays_refused() -> None:
    fact = _facts("""
    static void step(double *v) { gather(v, N); }
    int main(void) {
      step(&acc[0]);
      return 0;
    }
    """)
    assert not fact.parallel


def test_a_function_other_files_may_call_stays_refused() -> None:
    text = (
        (KERNEL % ("", "")).replace("static  void", "void")
        + """
    int main(void) {
      double *buf = malloc(sizeof(double) * N);
      gather(buf, N);
      return 0;
    }
    """
    )
    (fact,) = [f for f in analyze_text(text).facts if f.loop.function == "gather"]
    assert not fact.parallel


def test_a_reassigned_parameter_stays_refused() -> None:
    fact = _facts(
        """
    int main(void) {
      double *buf = malloc(sizeof(double) * N);
      gather(buf, N);
      return 0;
    }
    """,
        reassign="if (n > N) out = acc;",
    )
    assert not fact.parallel
