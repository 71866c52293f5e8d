"""A callee reading an object the loop writes under another name (a pointer copy)."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

_HEAD = """\
#define N 1000
double x[N];
double y[N];
int counts[N];
double scale;
double *gp;
struct S { double *d; };
static double get(const double *v, int i) { return v[i]; }
static double getg(int i) { return x[i] * scale; }
static double scaled(int i) { return scale * i; }
static int geti(const int *v, int i) { return v[i]; }
static void setup(void) { gp = x; }
struct Counts { int *c; int n; };
static double gets(const struct S *s, int i) { return s->d[i]; }
static double getv(struct S s, int i) { return s.d[i]; }
static int getc(struct Counts c, int i) { return c.c[i] + c.n; }
struct S gs;
static double getgs(int i) { return gs.d[i]; }
"""


def _verdict(body: str, name: str = "k.c", head: str = _HEAD) -> tuple[bool, str]:
    facts = analyze(parse_source(head + dedent(body), name)).facts
    last = max(facts, key=lambda f: f.loop.line)
    return last.parallel, " | ".join(o.message for o in last.obstacles)


# Each loop writes `x` through another name while a callee reads `x` at
# `i - 1`: iteration i reads what iteration i - 1 wrote.
_OVERLAPPING = {
    "a pointer copy, read through an argument": """\
        void f(void) {
          double *p = x;
          for (int i = 1; i < N; i++) p[i] = get(x, i - 1) + 1.0;
        }
        """,
    "a pointer copy, read as a global": """\
        void f(void) {
          double *p = x;
          for (int i = 1; i < N; i++) p[i] = getg(i - 1) + 1.0;
        }
        """,
    "the address of the first element": """\
        void f(void) {
          double *p = &x[0];
          for (int i = 1; i < N; i++) p[i] = get(x, i - 1) + 1.0;
        }
        """,
    "a struct field holding the pointer": """\
        void f(void) {
          struct S s;
          s.d = x;
          for (int i = 1; i < N; i++) s.d[i] = get(x, i - 1) + 1.0;
        }
        """,
    "a global pointer set in another function": """\
        void f(void) {
          setup();
          for (int i = 1; i < N; i++) gp[i] = getg(i - 1) + 1.0;
        }
        """,
    "a struct passed by value": """\
        void f(void) {
          struct S s;
          double *p = x;
          s.d = x;
          for (int i = 1; i < N; i++) p[i] = getv(s, i - 1) + 1.0;
        }
        """,
    "a pointer to a struct": """\
        void f(struct S *s) {
          double *p = x;
          for (int i = 1; i < N; i++) p[i] = gets(s, i - 1) + 1.0;
        }
        """,
    "a global struct's pointer field": """\
        void f(void) {
          double *p = x;
          gs.d = x;
          for (int i = 1; i < N; i++) p[i] = getgs(i - 1) + 1.0;
        }
        """,
    "the array written, the copy passed": """\
        void f(void) {
          double *p = x;
          for (int i = 1; i < N; i++) x[i] = get(p, i - 1) + 1.0;
        }
        """,
    "a pointer parameter written, another read": """\
        void f(double *a, const double *b) {
          for (int i = 1; i < N; i++) a[i] = get(b, i - 1) + 1.0;
        }
        """,
}


@pytest.mark.parametrize("body", _OVERLAPPING.values(), ids=list(_OVERLAPPING))
def test_a_callee_read_of_what_the_loop_writes_elsewhere_refuses(body: str) -> None:
    ok, why = _verdict(body)
    assert not ok
    # A pointer set once to the array itself (`p = x`, `p = &x[0]`) is read as
    # the array: the reason then names the callee's read of what the loop writes.
    named = "may point to the same memory" in why or "and the loop writes it" in why
    assert named, why


def test_a_cpp_pointer_taken_from_a_vector() -> None:
    head = """\
        #include <vector>
        struct D { std::vector<double> m_x; };
        static double get(const double *v, int i) { return v[i]; }
        """
    ok, why = _verdict(
        """\
        void f(D& d, int n) {
          double *p = d.m_x.data();
          const double *q = d.m_x.data();
          for (int i = 1; i < n; i++) p[i] = get(q, i - 1) + 1.0;
        }
        """,
        "k.cpp",
        dedent(head),
    )
    assert not ok
    assert "may point to the same memory" in why, why


# What the aliasing rules keep apart stays parallel.
_APART = {
    "two distinct arrays": """\
        void f(void) {
          for (int i = 1; i < N; i++) y[i] = get(x, i - 1) + 1.0;
        }
        """,
    "a pointer to another element type": """\
        void f(void) {
          double *p = y;
          for (int i = 1; i < N; i++) p[i] = geti(counts, i - 1) + 1.0;
        }
        """,
    "a struct whose fields reach only another element type": """\
        void f(struct Counts c) {
          double *p = y;
          for (int i = 1; i < N; i++) p[i] = getc(c, i - 1) + 1.0;
        }
        """,
    "restrict pointers": """\
        void f(double *restrict a, const double *restrict b) {
          for (int i = 1; i < N; i++) a[i] = get(b, i - 1) + 1.0;
        }
        """,
    "a scalar global read by value": """\
        void f(double *p) {
          for (int i = 1; i < N; i++) p[i] = scaled(i);
        }
        """,
}


@pytest.mark.parametrize("body", _APART.values(), ids=list(_APART))
def test_objects_the_rules_keep_apart_stay_parallel(body: str) -> None:
    ok, why = _verdict(body)
    assert ok, why


_NUMBER_HEAD = _HEAD + dedent(
    """\
    typedef double *dptr;
    struct In { long n; dptr d; };
    """
)


def test_a_number_field_is_passed_by_value() -> None:
    # `in.n` is a value the loop loads at the call: no memory the callee reads.
    body = """\
        void f(struct In in) {
          for (int i = 1; i < N; i++) y[i] = get(x + in.n, i - 1) + 1.0;
        }
        """
    ok, why = _verdict(body, head=_NUMBER_HEAD)
    assert ok, why


def test_a_field_of_a_pointer_typedef_is_memory_the_callee_reads() -> None:
    body = """\
        void f(struct In in) {
          in.d = x;
          for (int i = 1; i < N; i++) x[i] = get(in.d, i - 1) + 1.0;
        }
        """
    ok, why = _verdict(body, head=_NUMBER_HEAD)
    assert not ok
    assert "may point to the same memory" in why, why
