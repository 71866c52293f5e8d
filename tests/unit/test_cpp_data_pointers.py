"""A pointer from `v.data()` of a local container points into `v`'s own buffer."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#include <vector>
struct Buf {
  double *data() { return g; }
  double g[1001];
};
double run(std::vector<double> &ext) {
  std::vector<double> u(1001, 1.0), w(1001, 2.0);
  std::vector<double> &r = u;
  Buf b;
  double *first = FIRST;
  double *second = SECOND;
  for (int i = 0; i < 1000; i++) {
    first[i] = first[i] + 0.5 * second[i + 1];
  }
  return u[0] + w[0] + r[0] + ext[0] + b.g[0];
}
"""


def _parallel(first: str, second: str) -> bool:
    text = _TEXT.replace("FIRST", first).replace("SECOND", second)
    (fact,) = analyze_text(text, path="t.cpp").facts
    return fact.parallel


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("w.data()", "u.data()"),
        ("w.data()", "ext.data()"),  # a buffer made here: no caller holds it
        ("w.data()", "b.data()"),
    ],
)
def test_data_of_a_local_vector_overlaps_no_other_object(
    first: str, second: str
) -> None:
    assert _parallel(first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("u.data()", "u.data()"),  # one buffer: `second[i + 1]` is written later
        ("u.data()", "u.data() + 1"),
        ("u.data()", "r.data()"),  # `r` is `u`
        ("b.data()", "r.data()"),  # a class of the file: its method decides
    ],
)
def test_data_pointers_that_may_share_a_buffer_keep_the_refusal(
    first: str, second: str
) -> None:
    assert not _parallel(first, second)
