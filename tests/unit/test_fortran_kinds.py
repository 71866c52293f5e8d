"""Fortran `real` precisions from kind selectors; single-precision totals refused."""

from __future__ import annotations

import pytest
from accls.analysis import AnalysisOptions, analyze_text
from accls.frontend import parse_source

_KINDS = """
module precision
  integer, parameter :: dp = kind(1.0d0), sp = kind(1.0)
  integer, parameter :: wp = dp, qp = selected_real_kind(33, 4931)
  integer, parameter :: hp = selected_real_kind(p=6)
end module
subroutine decls(n)
  use precision
  use, intrinsic :: iso_fortran_env, only: real32, real64
  integer :: n
  DECL :: x
  x = 0
end subroutine
"""


@pytest.mark.parametrize(
    ("decl", "c_type"),
    [
        ("real", "float"),
        ("real(4)", "float"),
        ("real*4", "float"),
        ("real(kind=4)", "float"),
        ("real(sp)", "float"),
        ("real(kind=sp)", "float"),
        ("real(hp)", "float"),
        ("real(real32)", "float"),
        ("real(kind(1.0))", "float"),
        ("real(kind(0.5e0))", "float"),
        ("real(8)", "double"),
        ("real*8", "double"),
        ("real(kind=8)", "double"),
        ("real(dp)", "double"),
        ("real(kind=wp)", "double"),  # a parameter naming a parameter
        ("real(qp)", "double"),
        ("real(real64)", "double"),
        ("real(kind(1.0d0))", "double"),
        ("real(kind(1.0_dp))", "double"),
        ("real(kind(1.0_sp))", "float"),
        ("real(selected_real_kind(15, 307))", "double"),
        # a kind from a module not read: double only when its name says so
        ("real(r8)", "double"),
        ("real(rk)", "float"),
        ("real(kind(y))", "float"),  # a variable's kind: not read
        ("double precision", "double"),
    ],
)
def test_real_kinds(decl: str, c_type: str) -> None:
    source = parse_source(_KINDS.replace("DECL", decl), "k.f90")
    x = source.function("decls").lookup("x")  # type: ignore[union-attr]
    assert x is not None
    assert x.type == c_type


_SUM = """
subroutine total(a, n, s)
  integer, parameter :: dp = kind(1.0d0)
  integer :: n, i
  DECL :: a(n), s
  s = 0
  do i = 1, n
    s = s + a(i)
  end do
end subroutine
"""


def _loop(decl: str, reassociate: bool = False):  # type: ignore[no-untyped-def]
    options = AnalysisOptions(dialect="omp", reassociate_float=reassociate)
    analysis = analyze_text(_SUM.replace("DECL", decl), "t.f90", options=options)
    return analysis.facts[0]


def test_a_single_precision_total_is_refused() -> None:
    fact = _loop("real")
    assert not fact.parallel
    refusal = next(o for o in fact.obstacles if o.code.value == "rounding")
    assert "`real` total" in refusal.message
    assert "real(kind(1.0d0))" in refusal.message


@pytest.mark.parametrize("decl", ["real(dp)", "double precision", "real(8)"])
def test_a_double_precision_total_is_reduced(decl: str) -> None:
    assert _loop(decl).parallel


def test_the_setting_reduces_a_single_precision_total() -> None:
    fact = _loop("real", reassociate=True)
    assert fact.parallel
    assert any("`real` total `s`" in a for a in fact.assumptions)


_FOREIGN = """
subroutine total(a, n, s)
  use kinds, only: sp, wp, dp
  integer :: n, i
  DECL :: a(n), s
  s = 0
  do i = 1, n
    s = s + a(i)
  end do
end subroutine
"""


@pytest.mark.parametrize(
    ("decl", "parallel"), [("real(sp)", False), ("real(wp)", False), ("real(dp)", True)]
)
def test_a_kind_from_a_module_not_read(decl: str, parallel: bool) -> None:
    # `wp = sp` in a module of another file: a working precision may be single
    options = AnalysisOptions(dialect="omp")
    text = _FOREIGN.replace("DECL", decl)
    fact = analyze_text(text, "t.f90", options=options).facts[0]
    assert fact.parallel is parallel
