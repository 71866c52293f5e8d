"""Two pointer parameters every call passes one array or two apart (`f(u, u)`)."""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

KERNEL = """
#include <stdlib.h>
#define N 1000
static void kern(double *y, const double *x, int n) {
  %s
  for (int i = 0; i < n; i++) {
    %s
  }
}
"""
MAIN = """
int main(void) {
  double *u = malloc(sizeof(double) * N);
  double *v = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) { u[i] = i; v[i] = 0.0; }
  %s
  free(u);
  free(v);
  return 0;
}
"""
SAME_AND_APART = "kern(v, u, N); kern(u, u, N);"


def _text(body: str, calls: str, head: str = "") -> str:
    return KERNEL % (head, body) + MAIN % calls


def _facts(body: str, calls: str, head: str = "") -> LoopFacts:
    text = _text(body, calls, head)
    (fact,) = [f for f in analyze_text(text).facts if f.loop.function == "kern"]
    return fact


def _reasons(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles]


def test_elementwise_kernel_called_with_one_array_and_with_two() -> None:
    fact = _facts("y[i] = 2.0 * x[i];", SAME_AND_APART)
    assert fact.parallel, _reasons(fact)
    assert any("passes one array to both" in a for a in fact.assumptions)


def test_a_neighbour_read_races_when_the_array_is_one() -> None:
    fact = _facts("y[i] = x[i + 1] + x[i];", SAME_AND_APART)
    assert not fact.parallel


def test_a_partial_overlap_at_one_call_stays_refused() -> None:
    fact = _facts("y[i] = 2.0 * x[i];", "kern(v, u, N - 1); kern(u + 1, u, N - 1);")
    assert not fact.parallel


def test_a_parameter_reassigned_in_the_callee_stays_refused() -> None:
    fact = _facts("y[i] = 2.0 * x[i];", SAME_AND_APART, head="y = y + (n > 5);")
    assert not fact.parallel


def test_a_pointer_of_unknown_origin_at_one_call_stays_refused() -> None:
    text = "double *ext;\n" + _text(
        "y[i] = 2.0 * x[i];", "kern(u, u, N); kern(ext, u, N);"
    )
    (fact,) = [f for f in analyze_text(text).facts if f.loop.function == "kern"]
    assert not fact.parallel


def test_offloaded_both_are_mapped_with_copy() -> None:
    text = _text("y[i] = 2.0 * x[i];", SAME_AND_APART)
    found = suggest_text(
        text, "k.c", Settings(dialect=Dialect.OPENACC, validate=False)
    ).suggestions
    (kern,) = [s for s in found if s.loop.function == "kern"]
    assert kern.pragma is not None
    shown = kern.pragma.render()
    assert "copyin" not in shown, shown
    assert "copyout" not in shown, shown
    assert "copy(" in shown, shown
