"""Totals over eight bytes: clang's reduction or atomic of one needs libatomic.

A `long double` (or `__int128`, or complex) total has no lock-free atomic on
x86-64, so clang's `reduction(+: s)` and `#pragma omp atomic` call
`__atomic_compare_exchange`, and the annotated program fails to link without
`-latomic` (found by harm blind batch 13, `c07_precision.c`). The loop stays
serial; a `double` twin is still reduced.
"""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.analysis.model import ObstacleCode

_TEXT = """
#define N 1000
static double x[N];
static int b[N];
static long double h[16];
static double hd[16];
typedef long double real_t;
long double ld_sum(void) {
  long double s = 0;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
real_t typedef_sum(void) {
  real_t s = 0;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
int wide_int(void) {
  __int128 q = 0;
  for (int i = 0; i < N; i++) q += b[i];
  return (int)q;
}
long double ld_max(void) {
  long double m = 0;
  for (int i = 0; i < N; i++) m = x[i] > m ? x[i] : m;
  return m;
}
void ld_bins(void) {
  for (int i = 0; i < N; i++) h[b[i]] += x[i];
}
double d_sum(void) {
  double s = 0;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
void d_bins(void) {
  for (int i = 0; i < N; i++) hd[b[i]] += x[i];
}
"""


def _facts() -> dict[str, LoopFacts]:
    analysis = analyze_text(_TEXT, options=AnalysisOptions(dialect="omp"))
    return {f.loop.function or "": f for f in analysis.facts}


@pytest.mark.parametrize("name", ["ld_sum", "typedef_sum", "wide_int", "ld_max"])
def test_a_wide_total_keeps_the_loop_serial(name: str) -> None:
    facts = _facts()[name]
    assert not facts.parallel
    assert any(o.code is ObstacleCode.WIDE for o in facts.obstacles)


def test_a_wide_histogram_gets_no_atomic_and_no_array_reduction() -> None:
    facts = _facts()["ld_bins"]
    assert not facts.parallel
    assert not facts.atomics


def test_double_twins_are_still_parallel() -> None:
    facts = _facts()
    assert facts["d_sum"].parallel
    assert facts["d_bins"].parallel


_CPP = """
#define N 1000
static double x[N];
using real = long double;
using single = float;
using wide = double;
real alias_wide() {
  real s = 0;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
single alias_narrow() {
  single s = 0;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
long double auto_wide() {
  auto s = 0.0L;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
float auto_narrow() {
  auto s = 0.0f;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
float auto_unknown() {
  auto s = x[0];
  for (int i = 1; i < N; i++) s += x[i];
  return (float)s;
}
wide alias_double() {
  wide s = 0;
  for (int i = 0; i < N; i++) s += x[i];
  return s;
}
"""


def test_cpp_aliases_and_auto_totals_are_typed() -> None:
    """`using real = long double;` and `auto s = 0.0f;` were read as plain totals."""
    analysis = analyze_text(_CPP, path="t.cpp", options=AnalysisOptions(dialect="omp"))
    facts = {f.loop.function or "": f for f in analysis.facts}
    for name in ("alias_wide", "alias_narrow", "auto_wide", "auto_narrow"):
        assert not facts[name].parallel, name
    assert any(o.code is ObstacleCode.WIDE for o in facts["auto_wide"].obstacles)
    assert not facts["auto_unknown"].parallel  # its precision is not known
    assert facts["alias_double"].parallel


_TYPEOF = """
#define N 1000
static float xf[N];
static long double xl[N];
static double xd[N];
float of_float(void) {
  typeof(xf[0]) s = 0;
  for (int i = 0; i < N; i++) s += xf[i];
  return s;
}
long double of_wide(void) {
  __typeof__(xl[0]) s = 0;
  for (int i = 0; i < N; i++) s += xl[i];
  return s;
}
float auto_type(void) {
  __auto_type s = 0.0f;
  for (int i = 0; i < N; i++) s += xf[i];
  return s;
}
double of_double(void) {
  typeof(xd[0]) s = 0;
  for (int i = 0; i < N; i++) s += xd[i];
  return s;
}
"""


def test_gnu_typeof_and_auto_type_totals_are_typed() -> None:
    """`typeof(xf[0]) s` is a `float`: it was read as a type of no precision."""
    analysis = analyze_text(_TYPEOF, options=AnalysisOptions(dialect="omp"))
    facts = {f.loop.function or "": f for f in analysis.facts}
    assert not facts["of_float"].parallel
    assert any(o.code is ObstacleCode.WIDE for o in facts["of_wide"].obstacles)
    assert not facts["auto_type"].parallel
    assert facts["of_double"].parallel
