"""A name declared twice in a function: in a loop, the declaration in scope there."""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text

SHADOWED = """
void f(double *p, double *q, int n) {
  {
    %s a[10];
    a[0] = 1.0;
    q[0] = a[0];
  }
  {
    double *a = p;
    for (int i = 0; i < n - 1; i++)
      a[i] = q[i + 1] + 1.0;
  }
}
"""

BODY_ARRAY = """
void g(double *a, int n) {
  for (int k = 0; k < n; k++) {
    double sum = 0.0;
    sum += a[k];
    a[k] = sum;
  }
  for (int c = 0; c < n / 4; c++) {
    double sum[4] = {0.0};
    for (int j = 0; j < 4; j++)
      a[4 * c + j] -= sum[j];
  }
}
"""


def _loop(text: str, var: str) -> LoopFacts:
    return next(f for f in analyze_text(text).facts if f.loop.var == var)


def _alias(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles if o.code == "alias"]


def test_a_pointer_that_shadows_an_earlier_array_may_overlap() -> None:
    # `a` is `p` here: with `q == p` the loop reads what a later iteration writes.
    fact = _loop(SHADOWED % "double", "i")
    assert not fact.parallel
    assert any("`a`" in m and "`q`" in m for m in _alias(fact)), fact.obstacles


def test_a_pointer_of_the_body_that_shadows_an_outer_array_may_overlap() -> None:
    text = """
void h(double *p, double *q, int n) {
  double a[10];
  a[0] = 1.0;
  q[0] = a[0];
  for (int i = 0; i < n - 1; i++) {
    double *a = p;
    a[i] = q[i + 1] + 1.0;
  }
}
"""
    assert not _loop(text, "i").parallel


def test_a_body_array_is_not_taken_for_an_earlier_scalar_of_its_name() -> None:
    assert _alias(_loop(BODY_ARRAY, "j")) == []


def test_a_name_declared_hundreds_of_times_is_resolved_in_scope() -> None:
    # A generated function: the pointer `a` of the last block is still `p`.
    first = SHADOWED.index("  {")
    last = SHADOWED.index("  {\n    double *a = p;")
    blocks = SHADOWED[first:last] % "double"
    text = SHADOWED[:first] + blocks * 120 + SHADOWED[last:]
    fact = _loop(text, "i")
    assert not fact.parallel
    assert any("`a`" in m and "`q`" in m for m in _alias(fact)), fact.obstacles
