"""Pointers into one buffer at an offset that is no polynomial (`buf + n / 2`)."""

from __future__ import annotations

from accls.analysis import LoopFacts, analyze_text


def _facts(body: str) -> LoopFacts:
    text = f"static void f(double *buf, int n) {{\n{body}\n}}\n"
    (fact,) = analyze_text(text).facts
    return fact


def test_upper_half_written_from_the_lower_half() -> None:
    fact = _facts("""
      double *p = buf + n / 2;
      for (int i = 0; i < n / 2; i++) p[i] = buf[i] * 2.0;
    """)
    assert fact.parallel, [o.message for o in fact.obstacles]


def test_an_offset_shorter_than_the_range_stays_refused() -> None:
    fact = _facts("""
      double *p = buf + n / 4;
      for (int i = 0; i < n / 2; i++) p[i] = buf[i] * 2.0;
    """)
    assert not fact.parallel


def test_an_offset_whose_variable_changes_after_it_is_set_stays_refused() -> None:
    fact = _facts("""
      double *p = buf + n / 2;
      n = n + 2;
      for (int i = 0; i < n / 2; i++) p[i] = buf[i] * 2.0;
    """)
    assert not fact.parallel


def test_an_offset_with_a_call_stays_refused() -> None:
    fact = _facts("""
      double *p = buf + half(n);
      for (int i = 0; i < n / 2; i++) p[i] = buf[i] * 2.0;
    """)
    assert not fact.parallel
