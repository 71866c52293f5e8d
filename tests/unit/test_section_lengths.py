"""A section's length may not be negative: `a[1:n - 1]` is -1 elements when
`n` is 0, where the loop runs zero times but the clause is still evaluated."""

from __future__ import annotations

import pytest
from accls.analysis import analyze_text
from accls.suggest import Dialect, SuggestOptions, Target, suggest_file

_TEXT = """
#define N 100
void f(int n, int m, const double *restrict a, double *restrict b) {
  for (int i = LOW; i < HIGH; i++) b[i] = a[i] * 2.0;
}
"""


def _pragma(low: str, high: str, dialect: Dialect) -> str:
    analysis = analyze_text(_TEXT.replace("LOW", low).replace("HIGH", high))
    opts = SuggestOptions(dialect=dialect, target=Target.GPU)
    suggestion = suggest_file(analysis, opts)[0]
    assert suggestion.pragma is not None, suggestion.reasons
    return suggestion.pragma.render()


@pytest.mark.parametrize("dialect", [Dialect.OPENACC, Dialect.OPENMP])
@pytest.mark.parametrize(
    ("low", "high", "length"),
    [("1", "n", "n - 1"), ("0", "n - m", "n - m"), ("2", "N * n", "N*n - 2")],
)
def test_a_length_that_may_be_negative_is_clamped_at_zero(
    low: str, high: str, length: str, dialect: Dialect
) -> None:
    assert f"b[{low}:({length} > 0 ? {length} : 0)]" in _pragma(low, high, dialect)


@pytest.mark.parametrize(
    ("low", "high", "section"),
    [("0", "n", "b[0:n]"), ("2", "N", "b[2:N - 2]"), ("0", "n + 1", "b[0:n + 1]")],
)
def test_counts_and_constant_lengths_are_written_as_they_are(
    low: str, high: str, section: str
) -> None:
    assert f"{section})" in _pragma(low, high, Dialect.OPENACC)


def test_fortran_sections_are_empty_when_the_bounds_cross() -> None:
    text = """\
subroutine f(n, a, b)
  integer :: n, i
  real(8) :: a(*), b(*)
  do i = 2, n
    b(i) = a(i) * 2.0d0
  end do
end subroutine f
"""
    analysis = analyze_text(text, "f.f90")
    opts = SuggestOptions(dialect=Dialect.OPENACC, target=Target.GPU)
    [suggestion] = suggest_file(analysis, opts)
    assert suggestion.pragma is not None
    assert "copyout(b(2:n))" in suggestion.pragma.render()
