"""ACC209: `copyout` of elements no write of the loop can reach."""

from __future__ import annotations

import pytest
from accls.analysis.checks import check_file


def _acc209(text: str) -> list[int]:
    return [f.span.line for f in check_file(text, "t.c") if f.code == "ACC209"]


STENCIL = """
void smooth(int n, double *restrict o, const double *restrict in) {
  #pragma acc parallel loop copyin(in[0:n]) copyout(o[SECTION])
  for (int i = 1; i < n - 1; i++)
    BODY
}
"""


def _stencil(section: str, body: str = "o[i] = in[i - 1] + in[i + 1];") -> str:
    return STENCIL.replace("SECTION", section).replace("BODY", body)


@pytest.mark.parametrize(
    ("section", "body"),
    [
        ("0:n", "o[i] = in[i];"),  # o[0] and o[n - 1] are never written
        ("1:n - 1", "o[i] = in[i];"),  # o[n - 1] is never written
        ("0:n - 1", "o[i] = in[i];"),  # o[0] is never written
        ("0:n", "if (in[i] > 0) o[i] = in[i];"),  # even a may-write misses o[0]
    ],
)
def test_an_element_no_write_reaches_is_reported(section: str, body: str) -> None:
    assert _acc209(_stencil(section, body)) == [3]


@pytest.mark.parametrize(
    ("section", "body"),
    [
        ("1:n - 2", "o[i] = in[i];"),  # exactly the written elements
        ("0:n", "{ o[i] = in[i]; o[i - 1] = 0; o[i + 1] = 0; }"),  # all reached
        ("1:n - 2", "{ o[i] = in[i]; }"),
        ("0:n", "o[i] = f(i);"),  # a callee may write `o` itself
        ("0:n", "o[idx(i)] = in[i];"),  # not affine
    ],
)
def test_silent_unless_proved(section: str, body: str) -> None:
    text = "double f(int);\nint idx(int);\n" + _stencil(section, body)
    assert _acc209(text) == []


def test_a_data_region_may_have_other_writers() -> None:
    text = """
void two(int n, double *restrict o) {
  #pragma acc data copyout(o[0:n])
  {
    #pragma acc parallel loop present(o)
    for (int i = 0; i < n / 2; i++) o[i] = i;
    #pragma acc parallel loop present(o)
    for (int i = n / 2; i < n; i++) o[i] = -i;
  }
}
"""
    assert _acc209(text) == []


def test_rows_of_a_2d_section() -> None:
    text = """
void rows(int n, int m, double o[n][m]) {
  #pragma omp target teams distribute parallel for map(from: o[0:n][0:m])
  for (int i = 0; i < n - 1; i++)
    for (int j = 0; j < m; j++)
      o[i][j] = i + j;
}
"""
    assert _acc209(text) == [3]


def test_a_bound_changed_before_the_loop_ends_is_silent() -> None:
    text = """
void grow(int n, double *restrict o) {
  #pragma acc parallel loop copyout(o[0:n])
  for (int i = 0; i < n - 1; i++) { o[i] = i; n = n + 0; }
}
"""
    assert _acc209(text) == []
