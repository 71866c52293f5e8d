"""A loop test OpenMP does not accept names its canonical form in the reason."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text


def _reasons(header: str, params: str = "int n") -> tuple[bool, str]:
    body = f"  {header} a[i] = 1.0;\n"
    src = f"#define N 64\nvoid run({params}, double *restrict a) {{\n{body}}}\n"
    [loop] = [f for f in analyze_text(src).facts if f.loop.function == "run"]
    return loop.parallel, " ".join(o.message for o in loop.obstacles)


@pytest.mark.parametrize(
    ("header", "moved"),
    [
        ("for (int i = 0; i + 1 < n; i++)", "`i < n - 1`"),
        ("for (int i = 0; n > i + 2; i++)", "`i < n - 2`"),
        ("for (int i = 1; i - 1 <= 40; i++)", "`i <= 40 + 1`"),
        ("for (int i = 0; i + 1 < N; i++)", "`i < N - 1`"),
    ],
)
def test_an_offset_test_is_refused_with_its_canonical_form(
    header: str, moved: str
) -> None:
    parallel, why = _reasons(header)
    assert not parallel
    assert moved in why, why


@pytest.mark.parametrize(
    ("header", "params"),
    [
        # `n - 1` wraps at n == 0 where `i + 1 < n` does not.
        ("for (unsigned i = 0; i + 1 < n; i++)", "unsigned n"),
        ("for (int i = 0; i + 1 < n; i++)", "unsigned long n"),
        # Not an offset of the variable: no canonical form to name.
        ("for (int i = 0; i * 2 < n; i++)", "int n"),
        ("for (int i = 0; i + 1 < n + 3; i++)", "int n"),
    ],
)
def test_no_form_is_named_where_it_would_differ(header: str, params: str) -> None:
    parallel, why = _reasons(header, params)
    assert not parallel
    assert "written `" not in why, why
