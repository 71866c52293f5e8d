"""C++ container look-ups: `v.front()`, `v.back()` are elements, `m.count(k)` a read.

`v.front()` is `v[0]` and `v.back()` an element of `v` the test does not place:
a loop that only reads them is parallel, one that writes `v` or grows it is
not. A look-up in a `std::map` only reads it; `m[k]` inserts a missing key.
"""

from __future__ import annotations

import pytest
from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

_PROGRAM = """
#include <map>
#include <vector>
int main() {
  int n = 1000;
  std::vector<double> a(n, 1.0), b(n), c(4, 1.0);
  std::vector<int> key(n, 3), hits(n);
  std::map<int, double> m;
  m[3] = 2.0;
  for (int i = 0; i < n; ++i) {
    BODY
  }
  return (int)b[3] + hits[2];
}
"""
_LOOP = 10


def _parallel(body: str) -> bool:
    """Whether the loop running `body` gets a pragma."""
    settings = Settings(dialect=Dialect.OPENMP, validate=False)
    found = suggest_text(_PROGRAM.replace("BODY", body), "t.cpp", settings)
    rows = {s.loop.span.start[0] + 1: s.pragma is not None for s in found.suggestions}
    return rows[_LOOP]


@pytest.mark.parametrize(
    "body",
    [
        "b[i] = a[i] / a.front();",
        "b[i] = a[i] + a.back();",
        "hits[i] = (int)m.count(key[i]);",
    ],
)
def test_a_loop_reading_a_container_is_parallel(body: str) -> None:
    assert _parallel(body)


@pytest.mark.parametrize(
    "body",
    [
        # the element `a[0]` the next iterations read is written by the first
        "a[i] = a[i] / a.front();",
        # `back()` is an element the test does not place: any of `a`
        "a[i] = 2.0 * a.back();",
        "c.back() = a[i];",
        # growing `c` moves the element `front()` reads
        "if (a[i] > 0.5) c.push_back(a[i]); b[i] = c.front();",
        # `m[k]` inserts a missing key into the shared tree
        "hits[i] = (int)m.count(key[i]); b[i] = m[key[i]];",
    ],
)
def test_a_loop_writing_or_growing_the_container_is_refused(body: str) -> None:
    assert not _parallel(body)
