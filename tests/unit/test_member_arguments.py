"""Pointer members passed to a kernel: what the program stores in them decides.

`k(net->out, net->in, n)` passes two pointer fields, not two pieces of `*net`:
their stores (field points-to) tell them apart, in a lone program with `main`
as with an index of every file. `a->buf` and `b->buf` of two structs may hold
one buffer, however distinct the structs are.
"""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text

KERNEL = """
#include <stdio.h>
#include <stdlib.h>
typedef struct { int n; double *in; double *out; } Net;
static void k(double *dst, const double *src, int n) {
  for (int i = 0; i < n; i++)
    dst[i] = src[i + 1] * 0.5;
}
"""

MAKE = """
static Net *make(int n) {
  Net *net = malloc(sizeof(Net));
  net->n = n;
  net->in = malloc(sizeof(double) * (n + 1));
  net->out = %s;
  return net;
}
int main(void) {
  Net *net = make(1000);
  for (int i = 0; i <= net->n; i++) net->in[i] = i;
  step(net);
  printf("%%f\\n", net->out[7]);
  free((char *) net->in);
  free((char *) net);
  return 0;
}
"""

STEP = "static void step(Net *net) { k(net->out, net->in, net->n); }\n"


def _k(text: str) -> LoopFacts:
    found = analyze_text(text, "prog.c").facts
    (fact,) = [f for f in found if f.loop.function == "k"]
    return fact


def _alias(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles if o.code == "alias"]


def test_two_fields_each_set_from_its_own_block_are_apart() -> None:
    fact = _k(KERNEL + STEP + MAKE % "malloc(sizeof(double) * n)")
    assert fact.parallel, _alias(fact)


def test_a_field_set_from_the_other_field_stays_refused() -> None:
    fact = _k(KERNEL + STEP + MAKE % "net->in + 1")
    assert not fact.parallel
    assert _alias(fact)


def test_a_field_set_from_the_other_on_one_path_stays_refused() -> None:
    value = "n > 10 ? net->in : malloc(sizeof(double) * n)"
    fact = _k(KERNEL + STEP + MAKE % value)
    assert not fact.parallel


def test_one_member_of_two_structs_holding_one_buffer_stays_refused() -> None:
    text = (
        KERNEL
        + """
struct S { double *buf; };
static void both(struct S *a, struct S *b, int n) { k(a->buf, b->buf, n); }
int main(void) {
  int n = 1000;
  double *x = malloc(sizeof(double) * (n + 1));
  for (int i = 0; i <= n; i++) x[i] = i;
  struct S s1 = {x}, s2 = {x};
  both(&s1, &s2, n);
  printf("%f\\n", x[3]);
  free(x);
  return 0;
}
"""
    )
    fact = _k(text)
    assert not fact.parallel
    assert _alias(fact)


def test_without_main_the_fields_stay_unknown() -> None:
    text = (
        KERNEL
        + STEP
        + (MAKE % "malloc(sizeof(double) * n)").replace(
            "int main(void)", "int driver(void)"
        )
    )
    assert not _k(text).parallel
