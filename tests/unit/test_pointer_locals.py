"""A pointer declared in a parallel loop's body into a shared array: its writes."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file

_LOOP = """\
double rows[4][32], flat[4 * 32], out[400];
void f(void) {
  #pragma omp parallel for
  for (int i = 0; i < 400; i++) {
    {body}
  }
}
"""


def _codes(body: str) -> list[tuple[str, int]]:
    src = _LOOP.replace("{body}", body)
    return [(f.code, f.span.line) for f in check_file(src, "t.c")]


@pytest.mark.parametrize(
    "body",
    [
        "double *s = out; s[0] = i;",  # every iteration writes out[0]
        "double *s = flat + (i / 100) * 32; s[1] = i;",
        "double *s = &flat[(i / 100) * 32]; *s = i;",
        "double *s = rows[i / 100]; s[3] = i;",  # a row of a 2-D array
        "double *s = &rows[2][0]; s[0] = i;",
    ],
)
def test_writes_through_a_body_pointer_into_a_shared_array_race(body: str) -> None:
    assert _codes(body) == [("ACC101", 5)]


def test_a_row_picked_by_a_remainder_is_no_longer_silent() -> None:
    assert [c for c, _ in _codes("double *s = rows[i % 4]; s[0] = i;")] == ["ACC101"]


@pytest.mark.parametrize(
    "body",
    [
        "double *s = &out[i]; s[0] = i;",  # the iteration's own element
        "double *s = out + i; *s = 2.0 * i;",
        "double s0[4]; double *s = s0; s[0] = i; out[i] = s[0];",  # its own array
    ],
)
def test_a_body_pointer_to_the_iterations_own_element_does_not_race(body: str) -> None:
    assert _codes(body) == []
