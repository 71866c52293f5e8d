"""A pointer member the file sets from the other array is based on it."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, analyze_text

_TEXT = """
#define N 1000
struct S { double arr[N + 1]; double *p; double *q; } s;
double buf[N + 1], other[N + 1];
void setup(void) { SET }
void kernel(void) {
  for (int i = 0; i < N; i++) LOOP;
}
"""


def _kernel(set_: str, loop: str):  # type: ignore[no-untyped-def]
    text = _TEXT.replace("SET", set_).replace("LOOP", loop)
    facts = analyze_text(text, options=AnalysisOptions(assume_no_alias=True)).facts
    return next(f for f in facts if f.loop.function == "kernel")


@pytest.mark.parametrize(
    ("set_", "loop"),
    [
        # serially 599996.22, at 4 threads 647238.43 (the same loop, `s.p = s.arr + 1`)
        ("s.p = s.arr + 1;", "s.p[i] = s.arr[i] * 0.5"),
        ("s.p = &s.arr[1];", "s.arr[i] = s.p[i] * 0.5"),
        ("s.p = buf + 1;", "s.p[i] = buf[i] * 0.5"),
        ("s.p = buf + 1; s.q = buf;", "s.p[i] = s.q[i] * 0.5"),
    ],
)
def test_a_member_set_from_the_other_array_is_refused(set_: str, loop: str) -> None:
    fact = _kernel(set_, loop)
    assert not fact.parallel
    assert any("so they point into one object" in o.message for o in fact.obstacles)


def test_a_member_set_from_another_array_keeps_the_assumption() -> None:
    fact = _kernel("s.p = other;", "s.p[i] = buf[i] * 0.5")
    assert fact.parallel
    assert any("assume-no-alias" in a for a in fact.assumptions)


@pytest.mark.parametrize(
    "set_",
    [
        "s.p = malloc((size_t)(N + 1) * sizeof(double)); "
        "s.q = malloc((size_t)(N + 1) * sizeof(double));",
        "s.p = (double *)calloc(N + 1, sizeof(double)); "
        "s.q = (double *)calloc(N + 1, sizeof(double));",
    ],
)
def test_members_set_from_fresh_blocks_share_no_source(set_: str) -> None:
    """Before: "both are set from `double`" (the `sizeof`'s type), past any promise."""
    fact = _kernel(set_, "s.p[i] = s.q[i] * 0.5")
    assert not any("point into one object" in o.message for o in fact.obstacles)
    assert fact.parallel


def test_a_member_set_by_realloc_of_the_other_stays_based_on_it() -> None:
    fact = _kernel("s.p = realloc(s.q, 8 * N);", "s.p[i] = s.q[i] * 0.5")
    assert not fact.parallel
    assert any("so they point into one object" in o.message for o in fact.obstacles)
