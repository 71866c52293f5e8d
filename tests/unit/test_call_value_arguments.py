"""A callee reading through an argument that names a variable the loop assigns whole.

`idx = nearest(...); sum += dist(c[idx])` and `p = buf + k*i; atof(p)`: the
write changes the variable (an index, a pointer), never the memory the callee
reads through it, so it is no reason to refuse the call. The variable itself is
the scalar analysis' business (private, or carried).
"""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source

_HEAD = """\
static float peek(const float *p) { return p[0]; }
static int val(const int *p) { return *p; }
static float dist(const float *a, const float *b, int n) {
  float s = 0;
  for (int k = 0; k < n; k++) s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}
static int nearest(const float *p, float **c, int nc, int n) {
  int best = 0;
  for (int j = 1; j < nc; j++) best = dist(p, c[j], n) < 1.0f ? j : best;
  return best;
}
"""


def _verdict(body: str) -> tuple[bool, str]:
    facts = analyze(parse_source(_HEAD + dedent(body), "k.c")).facts
    last = max(facts, key=lambda f: f.loop.line)
    return last.parallel, " | ".join(o.message for o in last.obstacles)


_SAFE = {
    "an index assigned from a call, then used in an argument": """\
        float rmse(float **restrict f, float **restrict c, int np, int nc, int n) {
          int i, idx;
          double sum = 0;
          for (i = 0; i < np; i++) {
            idx = nearest(f[i], c, nc, n);
            sum += dist(f[i], c[idx], n);
          }
          return sum;
        }
        """,
    "a pointer into a read-only buffer, assigned each iteration": """\
        void parse(float *restrict out, const float *restrict buf, int n) {
          const float *p;
          for (int i = 0; i < n; i++) {
            p = buf + 2 * i;
            out[i] = peek(p + 1);
          }
        }
        """,
}


@pytest.mark.parametrize("body", _SAFE.values(), ids=list(_SAFE))
def test_a_variable_assigned_whole_is_passed_by_value(body: str) -> None:
    parallel, why = _verdict(body)
    assert parallel, why


_UNSAFE = {
    "the value flows between iterations": """\
        void f(float *restrict out, float *restrict base, int n) {
          const float *t = base;
          for (int i = 0; i < n; i++) {
            out[i] = peek(t);
            t = base + i;
          }
        }
        """,
    "the callee reads the variable through its address": """\
        void f(int *restrict out, int n) {
          int x = 0;
          for (int i = 0; i < n; i++) {
            out[i] = val(&x);
            x = i;
          }
        }
        """,
    "the loop writes what the pointer reaches": """\
        void f(float *restrict out, float *restrict buf, int n) {
          float *p;
          for (int i = 0; i < n; i++) {
            p = buf;
            *p = i;
            out[i] = peek(p);
          }
        }
        """,
    "the loop writes the buffer the pointer reaches, by its name": """\
        void f(float *restrict out, float *restrict buf, int n) {
          float *p;
          for (int i = 0; i < n; i++) {
            p = buf + i;
            out[i] = peek(p + 1);
            buf[i] = i;
          }
        }
        """,
}


@pytest.mark.parametrize("body", _UNSAFE.values(), ids=list(_UNSAFE))
def test_a_real_conflict_still_refuses(body: str) -> None:
    parallel, _ = _verdict(body)
    assert not parallel


def test_the_address_taken_variable_keeps_the_call_reason() -> None:
    _, why = _verdict(_UNSAFE["the callee reads the variable through its address"])
    assert "reads `x` through an argument" in why
