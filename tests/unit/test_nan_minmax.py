"""Floating min/max updates that store a NaN keep their loop serial."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <math.h>
#define N 1000
TYPE a[N];
TYPE top(void) {
  TYPE m = a[0];
  for (int i = 0; i < N; i++) UPDATE;
  return m;
}
"""


def _fact(update: str, type_: str = "double"):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("TYPE", type_).replace("UPDATE", update)
    (fact,) = analyze_text(text).facts
    return fact


@pytest.mark.parametrize(
    "update",
    [
        # a NaN fails `a[i] < m`, replaces m, and the next value replaces it
        "m = (a[i] < m) ? m : a[i]",
        "m = m > a[i] ? m : a[i]",
        "m = (a[i] > m) ? m : a[i]",  # a min
    ],
)
def test_a_floating_update_that_stores_a_nan_is_refused(update: str) -> None:
    fact = _fact(update)
    assert not fact.parallel
    assert any("as it does for a NaN" in o.message for o in fact.obstacles)


@pytest.mark.parametrize(
    ("update", "type_"),
    [
        ("m = (a[i] > m) ? a[i] : m", "double"),
        ("if (a[i] > m) m = a[i]", "double"),
        ("m = fmax(m, a[i])", "double"),
        ("m = (a[i] < m) ? m : a[i]", "int"),  # no NaN in an int
    ],
)
def test_an_update_that_keeps_m_on_a_nan_stays_a_reduction(
    update: str, type_: str
) -> None:
    fact = _fact(update, type_)
    assert fact.parallel
    assert [s.op for s in fact.scalars if s.name == "m"]


_MACROS = """
#define MAX(x, y) ((x) > (y) ? (x) : (y))
#define MIN(x, y) (((x) < (y)) ? (x) : (y))
"""


@pytest.mark.parametrize(
    ("update", "defined"),
    [
        # a macro's expansion: parentheses around each operand and the whole
        ("m = ((m)>(a[i])?(m):(a[i]))", False),
        ("m = MAX(m, a[i])", True),  # (m) > (a[i]) ? (m) : (a[i]): takes a NaN
        ("m = MIN(m, a[i])", True),  # (m) < (a[i]) ? (m) : (a[i]): takes a NaN
        ("m = MAX(m, a[i])", False),  # the definition is not visible
    ],
)
def test_a_macro_or_parenthesised_update_that_may_store_a_nan_is_refused(
    update: str, defined: bool
) -> None:
    text = (_MACROS if defined else "") + _TEXT.replace("TYPE", "double").replace(
        "UPDATE", update
    )
    (fact,) = analyze_text(text).facts
    assert not fact.parallel
    assert any("NaN" in o.message for o in fact.obstacles)


@pytest.mark.parametrize("update", ["m = MAX(a[i], m)", "m = MIN(a[i], m)"])
def test_a_macro_that_keeps_m_on_a_nan_stays_a_reduction(update: str) -> None:
    text = _MACROS + _TEXT.replace("TYPE", "double").replace("UPDATE", update)
    (fact,) = analyze_text(text).facts
    assert fact.parallel
    assert [s.op for s in fact.scalars if s.name == "m"]
