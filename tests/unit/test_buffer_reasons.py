"""Pointers into one buffer: the reason when an access's range is unknown."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze_text

_TEXT = """
#include <stdlib.h>
void f(long n, const long *restrict idx, const double *restrict m) {
  double *vector = malloc(2 * n * sizeof(double));
  double *result = vector + n;
  for (long row = 0; row < n; row++) {
    double t = 0.0;
    for (long k = 0; k < 4; k++) t += m[row * 4 + k] * vector[INDEX];
    result[row] = t;
  }
  free(vector);
}
"""


def _messages(index: str) -> list[str]:
    facts = analyze_text(dedent(_TEXT).replace("INDEX", index)).facts
    outer = next(f for f in facts if f.loop.var == "row")
    return [o.message for o in outer.obstacles]


def test_an_indirect_read_into_the_buffer_is_named() -> None:
    found = [m for m in _messages("idx[row * 4 + k]") if "one buffer" in m]
    assert found
    assert "for `vector[idx[row * 4 + k]]`" in found[0]
    assert "its index reads another array" in found[0]


def test_direct_reads_below_the_offset_are_apart() -> None:
    assert not [m for m in _messages("row") if "overlap" in m]
