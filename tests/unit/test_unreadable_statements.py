"""Statements the parse misreads keep their loops serial: the real text is hidden.

A loop whose body is a preprocessor line right after its header:

`for (..)` followed on the next line by `#include "body.inc"` or by an
`#if`/`#ifdef` block has no braces: its body is the included text or the
branch the build compiles. tree-sitter ends such a `for` (`while`, `if`) with
an empty statement of its own making, zero bytes wide, and reads the
directive as a sibling, so the loop seemed to do nothing and got `parallel
for` over a carried dependence (found by harm blind batch 14,
`d13_included_bodies.c`). Such a loop is opaque; its braced twin is still
parallel.

A statement macro used without `;` (`PUSH(i)`, then `b[i] = a[i] * 2;` on the
next line) reads as the declaration of a local array `b` typed `PUSH(i)`:
the loop seemed to write only a local, and the macro's carried write was
unseen (same batch, found by probing). Such a declaration is opaque too;
So is one typed by an object-like macro that is a statement (`TICK` for
`ticks++;`, then `work(i);`, read as the declaration of a function).
Either is also a call of unknown effects, so that a callee holding one is
unknown to its callers (`TICK` then `a[i + 1] = ..` in a callee read as a
local array). `typeof(x) y` and `REAL t` (`#define REAL double`) are types,
and `PUSH(i);` with its `;` is read as the call.
"""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text
from accls.analysis.model import ObstacleCode

_TEXT = """
#define N 1000
static double a[N + 1], b[N], x[N];
static int c[N];
void included(void) {
  for (int i = 0; i < N; i++)
#include "body.inc"
}
void if_block(void) {
  for (int i = 0; i < N; i++)
#if 1
    a[i + 1] = a[i] * 0.5;
#endif
  b[0] = 0.0;
}
void ifdef_else(void) {
  for (int i = 0; i < N; i++)
#ifdef FAST
    a[i + 1] = a[i] * 0.25;
#else
    a[i + 1] = a[i] * 0.5;
#endif
  b[0] = 0.0;
}
void while_included(int k) {
  for (int i = 0; i < N; i++)
    while (k < i)
#include "step.inc"
}
void if_hidden(void) {
  double t = 0.0;
  for (int i = 0; i < N; i++) {
    if (c[i])
#if 1
      t = x[i];
#endif
    b[i] = t;
  }
}
#define PUSH(i) a[(i) + 1] = a[(i)] * 0.5;
#define SCALE(i) b[(i)] = a[(i)] * 0.5
void macro_without_semicolon(void) {
  for (int i = 0; i < N; i++) {
    PUSH(i)
    b[i] = a[i] * 2;
  }
}
void macro_with_semicolon(void) {
  for (int i = 0; i < N; i++) {
    SCALE(i);
    x[i] = a[i] * 2;
  }
}
static long ticks;
static void work(int i) { a[i + 1] = a[i] * 0.5; }
#define TICK ticks++;
#define REAL double
void object_macro_without_semicolon(void) {
  for (int i = 0; i < N; i++) {
    TICK
    work(i);
  }
}
void type_macro(void) {
  for (int i = 0; i < N; i++) {
    REAL t = a[i] * 2;
    b[i] = t;
  }
}
static void callee_step(int i) {
  TICK
  a[i + 1] = a[i] * 0.5;
}
void calls_unreadable(void) {
  for (int i = 0; i < N; i++) callee_step(i);
}
void typeof_local(void) {
  for (int i = 0; i < N; i++) {
    typeof(x[0]) t = a[i] * 2;
    b[i] = t;
  }
}
void braced(void) {
  for (int i = 0; i < N; i++) {
#if 1
    b[i] = a[i] * 0.5;
#endif
  }
}
"""


def _facts() -> dict[str, LoopFacts]:
    analysis = analyze_text(_TEXT, options=AnalysisOptions(dialect="omp"))
    first: dict[str, LoopFacts] = {}
    for facts in analysis.facts:  # the outer loop of each function comes first
        first.setdefault(facts.loop.function or "", facts)
    return first


@pytest.mark.parametrize(
    "name",
    [
        "included",
        "if_block",
        "ifdef_else",
        "while_included",
        "if_hidden",
        "macro_without_semicolon",
        "object_macro_without_semicolon",
    ],
)
def test_a_body_hidden_behind_a_directive_keeps_the_loop_serial(name: str) -> None:
    facts = _facts()[name]
    assert not facts.parallel
    assert any(o.code is ObstacleCode.OPAQUE for o in facts.obstacles)


def test_a_callee_holding_unreadable_text_has_unknown_effects() -> None:
    assert not _facts()["calls_unreadable"].parallel


@pytest.mark.parametrize(
    "name", ["braced", "macro_with_semicolon", "typeof_local", "type_macro"]
)
def test_readable_twins_are_still_parallel(name: str) -> None:
    assert _facts()[name].parallel
