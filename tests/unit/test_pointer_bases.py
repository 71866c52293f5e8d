"""A body pointer set into a pointer parameter: `double *s = a + 2 * i; s[k]`."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text

HEAD = """\
double *gp;
void h(void);
void run(int n, double *restrict a, const double *restrict b) {
  for (int i = 0; i < n; i++) {
"""


def _verdict(body: str) -> tuple[bool, str]:
    found = analyze_text(HEAD + f"    {body}\n  }}\n}}\n").facts
    loop = next(f for f in found if f.loop.function == "run" and f.loop.var == "i")
    why = " ".join(
        [*(o.message for o in loop.obstacles), *(d.reason for d in loop.dependences)]
    )
    return loop.parallel, why


@pytest.mark.parametrize(
    "body",
    [
        "double *s = a + 2 * i; s[0] = b[i]; s[1] = -b[i];",
        "double *s = &a[8 * i]; s[0] = 1.0; s[7] = b[i];",
        "double *s = &a[8 * i]; for (int j = 0; j < 8; j++) s[j] = b[j];",
        # the initializer's `k` is 2 * i; later changes of `k` move nothing
        "int k = 2 * i; double *s = &a[k]; k = k + 5; s[0] = 1.0; s[1] = k;",
        "int k = 3 * i; double *s = &a[k]; *s = b[i];",
    ],
)
def test_a_pointer_into_the_iteration_own_slice_is_parallel(body: str) -> None:
    ok, why = _verdict(body)
    assert ok, why


@pytest.mark.parametrize(
    "body",
    [
        "double *s = a + i; s[0] = 1.0; s[1] = 2.0;",  # a[i + 1] is the next one's
        "int k = i; double *s = &a[k]; s[0] = 1.0; s[1] = 2.0;",
        "double *s = &a[2 * i]; s[0] = 1.0; a = a + 1; s[1] = 2.0;",  # re-pointed
        "double *s = gp + 2 * i; h(); s[0] = 1.0; s[1] = 2.0;",  # a global
        "double *s = &a[2 * i]; s[0] = 1.0; a[2 * i + 2] = 0.0;",
    ],
)
def test_a_pointer_beyond_the_iteration_own_slice_is_refused(body: str) -> None:
    ok, why = _verdict(body)
    assert not ok, why


@pytest.mark.parametrize(
    "body",
    [
        "double *s, *t; s = &a[2 * i]; s[0] = 1.0; s[1] = b[i];",
        "int k = 8 * i; double *s; s = &a[k]; s[0] = 1.0; s[7] = b[i];",
        "double *s; if (b[i] > 0) { s = &a[2 * i]; s[0] = 1.0; s[1] = 2.0; }",
    ],
)
def test_a_pointer_set_after_its_declaration_before_its_uses_is_parallel(
    body: str,
) -> None:
    ok, why = _verdict(body)
    assert ok, why


@pytest.mark.parametrize(
    "body",
    [
        # a use the set does not reach: another path, an earlier statement
        "double *s; if (b[i] > 0) s = &a[2 * i]; s[0] = 1.0;",
        "double *s; for (int j = 0; j < 2; j++) s = &a[2 * i + j]; s[0] = 1.0;",
        "double *s, *t; t = s = &a[2 * i]; s[0] = 1.0; t[5] = 2.0;",
        "double *s = gp; s[0] = 1.0; s = &a[2 * i]; s[1] = 2.0;",
        "double *s; s = &a[i]; s[0] = 1.0; s[1] = 2.0;",
    ],
)
def test_a_pointer_set_after_its_declaration_elsewhere_is_refused(body: str) -> None:
    ok, why = _verdict(body)
    assert not ok, why
