"""A loop bound that is a product of integer macros (`i < H * W`) bounds the domain."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

_TEXT = """
#define H 150
#define W 200
void run(double *d, double *e) {
  for (int i = 0; i < H * W; i++) BODY;
}
"""


def _fact(body: str):  # type: ignore[no-untyped-def]
    (fact,) = analyze_text(_TEXT.replace("BODY", body)).facts
    return fact


@pytest.mark.parametrize(
    "body",
    ["d[H * W + i] = d[i] * 0.5", "d[i] = d[i + H * W]", "d[2 * H * W - i] = d[i]"],
)
def test_accesses_beyond_the_product_are_apart(body: str) -> None:
    fact = _fact(body)
    assert fact.parallel, [o.message for o in fact.obstacles]


@pytest.mark.parametrize(
    "body", ["d[H * W - 1 + i] = d[i] * 0.5", "d[i] = d[i + H * W - 2]"]
)
def test_accesses_inside_the_product_stay_carried(body: str) -> None:
    assert not _fact(body).parallel
