"""A reference member of container type reaches another object's elements."""

from __future__ import annotations

from accls.analysis import analyze_text

_STORE = """
#include <vector>
struct Holder {
  std::vector<double> &ref;
};
int main() {
  std::vector<double> d(100, 1.0);
  Holder h{d};
  for (std::size_t i = 0; i < 99; ++i) {
    h.ref[i] = d[i + 1] + 1.0;
  }
  return (int)d[0];
}
"""

_PASSED = """
#include <vector>
struct Holder {
  std::vector<double> &ref;
};
static void shift(const std::vector<double> &x, std::vector<double> &y) {
  for (std::size_t i = 0; i < 99; ++i) {
    y[i] = x[i + 1] + 1.0;
  }
}
int main() {
  std::vector<double> d(100, 1.0);
  Holder h{d};
  shift(d, h.ref);
  return (int)d[0];
}
"""

_OWNED = _STORE.replace("std::vector<double> &ref;", "std::vector<double> ref;")


def test_a_store_through_a_reference_member_may_reach_any_vector() -> None:
    # `h.ref` is `d`: `h.ref[i]` is written where a later iteration reads `d[i + 1]`.
    (fact,) = analyze_text(_STORE, path="t.cpp").facts
    assert not fact.parallel


def test_a_reference_member_passed_is_no_object_of_its_holder() -> None:
    # `h.ref` is no part of `h`: the call passes `d` twice.
    (fact,) = analyze_text(_PASSED, path="t.cpp").facts
    assert not fact.parallel


def test_an_owned_vector_member_stays_apart() -> None:
    owned = _OWNED.replace("Holder h{d};", "Holder h{d};  // a copy")
    (fact,) = analyze_text(owned, path="t.cpp").facts
    assert fact.parallel
