"""Fortran loops on arrays the file's data directives or runtime calls may hold on
the device: no proof is made, so they are not offloaded."""

from __future__ import annotations

from accls.pipeline import suggest_text
from accls.settings import Settings
from accls.suggest import Dialect

ACC = Settings(dialect=Dialect.OPENACC, validate=False)

# `init` keeps `a` on the device; `step`'s `copy(a)` would find it present and
# move nothing, so the host's `a` would never see the doubling.
ENTERED = """\
module m
  real(8), allocatable :: a(:)
contains
  subroutine init(n)
    integer :: n
    allocate(a(n))
    a = 1.0d0
    !$acc enter data copyin(a)
  end subroutine
  subroutine step(n)
    integer :: n, i
    do i = 1, n
      a(i) = 2.0d0 * a(i)
    end do
  end subroutine
end module
"""

COPIED_IN = """\
subroutine step(n, a, b)
  use openacc
  integer :: n, i
  real(8) :: a(n), b(n), t(n)
  call acc_copyin(b)
  do i = 1, n
    a(i) = 2.0d0 * i
  end do
  do i = 1, n
    t(i) = 3.0d0 * i
  end do
  call acc_delete(b)
end subroutine
"""


def _loops(text: str) -> dict[int, tuple[bool, str]]:
    found = suggest_text(text, "m.f90", ACC).suggestions
    return {
        s.loop.line: (s.pragma is not None, " ".join(s.reasons))
        for s in found
        if s.existing is None and not s.inner
    }


def test_module_array_entered_by_another_subroutine_is_not_offloaded() -> None:
    offered, why = _loops(ENTERED)[12]
    assert not offered
    assert "`a` may be held on the device" in why
    assert "(line 8)" in why


def test_without_a_hold_the_module_array_is_offloaded() -> None:
    text = ENTERED.replace("    !$acc enter data copyin(a)\n", "")
    assert _loops(text)[11][0]


def test_a_runtime_call_bars_dummy_arguments_but_not_own_locals() -> None:
    loops = _loops(COPIED_IN)
    offered, why = loops[6]
    assert not offered
    assert "`a` may be held" in why
    assert loops[9][0]
