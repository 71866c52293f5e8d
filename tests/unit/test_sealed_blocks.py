"""A pointer read from memory is apart from a block no pointer in memory reaches."""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text

PROGRAM = """
#include <stdlib.h>
#define N 1000
typedef struct { int n; double *val; } vec_t;
static double *kept;
static void keep(double *p) { kept = p; }
static void copy_out(const vec_t *A, double *y) {
  for (int i = 0; i < A->n; i++) {
    y[i] = 2.0 * A->val[i];
  }
}
int main(void) {
  vec_t A;
  A.n = N;
  A.val = malloc(sizeof(double) * N);
  double *y = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) A.val[i] = i;
  %s
  copy_out(&A, %s);
  free(A.val);
  free(y);
  return 0;
}
"""


def _facts(before: str = "", arg: str = "y") -> LoopFacts:
    text = PROGRAM % (before, arg)
    (fact,) = [f for f in analyze_text(text).facts if f.loop.function == "copy_out"]
    return fact


def test_a_block_the_caller_never_stores_is_apart_from_a_loaded_field() -> None:
    fact = _facts()
    assert fact.parallel, [o.message for o in fact.obstacles]
    assert any("never points into `y`" in a for a in fact.assumptions)


def test_a_field_set_from_the_same_block_stays_refused() -> None:
    assert not _facts("A.val = y;").parallel


def test_a_block_handed_to_a_call_that_keeps_it_stays_refused() -> None:
    assert not _facts("keep(y);").parallel


def test_a_pointer_loaded_from_memory_at_the_call_stays_refused() -> None:
    assert not _facts(arg="A.val").parallel


def test_a_local_copy_of_the_block_stored_in_a_field_stays_refused() -> None:
    assert not _facts("double *q = y + 2; A.val = q;").parallel
