"""Two locals swapped in turn are not based on one object: a promise sets them apart."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, LoopFacts, analyze_text

STENCIL = """
void sweep(float *in, float *out, int n, int steps) {
  float *src = in;
  float *dst = out;
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < n - 1; i++) {
      int t = i + 1;
      dst[i] = 0.5f * (src[i - 1] + src[t]);
    }
    %s
  }
}
"""

SWAP = "float *t = src;\n    src = dst;\n    dst = t;"


def _inner(text: str, promise: bool) -> LoopFacts:
    options = AnalysisOptions(assume_no_alias=promise)
    found = analyze_text(text, options=options).facts
    return next(f for f in found if f.loop.var == "i")


def _why(fact: LoopFacts) -> list[str]:
    return [o.message for o in fact.obstacles]


def test_two_parameters_swapped_in_turn_are_apart_under_the_promise() -> None:
    fact = _inner(STENCIL % SWAP, promise=True)
    assert fact.parallel, _why(fact)


def test_without_the_promise_the_swapped_pair_may_overlap() -> None:
    fact = _inner(STENCIL % SWAP, promise=False)
    assert not fact.parallel
    assert not any("both are set from" in m for m in _why(fact)), _why(fact)


@pytest.mark.parametrize(
    "rotation",
    [
        "float *t = src;\n    src = dst;\n    dst = src;",  # both end up `out`
        "src = dst;",  # from the second sweep on, one buffer read and written
        "float *t = src;\n    src = dst + 1;\n    dst = t;",
    ],
)
def test_a_rotation_that_makes_them_one_buffer_stays_refused(rotation: str) -> None:
    fact = _inner(STENCIL % rotation, promise=True)
    assert not fact.parallel
