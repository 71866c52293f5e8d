"""Defined operators and assignments are calls of the procedures behind them."""

from __future__ import annotations

from textwrap import dedent

from accls.analysis import analyze
from accls.frontend import parse_source

MODULE = dedent(
    """\
    module ops
      implicit none
      integer :: count = 0
      type vec
        real :: x
      end type
      type pt
        real :: x
      end type
      interface operator(+)
        module procedure add
      end interface
      interface operator(.twice.)
        module procedure twice
      end interface
      interface assignment(=)
        module procedure assign
      end interface
    contains
      function add(u, v) result(w)
        type(pt), intent(in) :: u, v
        type(pt) :: w
        w%x = u%x + v%x
      end function
      function twice(u) result(w)
        real, intent(in) :: u
        real :: w
        count = count + 1
        w = 2 * u
      end function
      subroutine assign(u, r)
        type(vec), intent(out) :: u
        real, intent(in) :: r
        count = count + 1
        u%x = r
      end subroutine
    end module
    program t
      use ops
      implicit none
      integer, parameter :: n = 1000
      type(vec) :: c(n)
      type(pt) :: a(n), b(n), d(n)
      real :: r(n), s(n)
      integer :: i
      do i = 1, n
        d(i) = a(i) + b(i)
      end do
      do i = 1, n
        s(i) = .twice. r(i)
      end do
      do i = 1, n
        c(i) = r(i)
      end do
      do i = 1, n
        s(i) = r(i) + 1.0
        c(i)%x = s(i)
      end do
    end program
    """
)


# Without the defined assignment: every assignment of a derived type in sight
# of `assignment(=)` may call its subroutines (the types are not matched).
OPERATORS = MODULE.replace(
    "  interface assignment(=)\n    module procedure assign\n  end interface\n", ""
)


def _facts(text: str = OPERATORS):  # type: ignore[no-untyped-def]
    source = parse_source(text, "ops.f90")
    analysis = analyze(source)
    return {loop.line: analysis.of(loop) for loop in source.loops()}


def test_a_defined_operation_calls_its_procedure() -> None:
    facts = _facts()
    assert [c.name for c in facts[43].loop.calls] == ["add"]
    # `add` touches nothing but its operands: the loop stays parallel.
    assert facts[43].parallel, [o.message for o in facts[43].obstacles]
    assert [c.name for c in facts[46].loop.calls] == ["twice"]
    assert not facts[46].parallel
    assert any("twice" in o.message for o in facts[46].obstacles)


def test_a_defined_assignment_calls_its_subroutine() -> None:
    facts = _facts(MODULE)
    assert [c.name for c in facts[52].loop.calls] == ["assign"]
    assert not facts[52].parallel
    assert any("assign" in o.message for o in facts[52].obstacles)


def test_intrinsic_operands_and_components_are_no_call() -> None:
    facts = _facts()
    # `r(i) + 1.0` is real arithmetic and `c(i)%x = ...` assigns a real.
    assert not facts[52].loop.calls
    assert facts[52].parallel, [o.message for o in facts[52].obstacles]


def test_a_type_bound_call_is_a_call_not_a_member() -> None:
    text = dedent(
        """\
        module cells
          implicit none
          integer :: uses = 0
          type cell
            real :: x
          contains
            procedure :: get
            procedure :: step
          end type
        contains
          real function get(self)
            class(cell), intent(in) :: self
            uses = uses + 1
            get = self%x
          end function
          subroutine step(self)
            class(cell), intent(inout) :: self
            uses = uses + 1
          end subroutine
        end module
        program t
          use cells
          implicit none
          integer, parameter :: n = 1000
          type(cell) :: c(n)
          real :: b(n)
          integer :: i
          do i = 1, n
            b(i) = c(i)%get() + c(i)%x
          end do
          do i = 1, n
            call c(i)%step()
          end do
        end program
        """
    )
    source = parse_source(text, "cells.f90")
    analysis = analyze(source)
    facts = {loop.line: analysis.of(loop) for loop in source.loops()}
    # Which procedure a binding runs is chosen at run time: an unknown call.
    assert [c.name for c in facts[28].loop.calls] == ["c(i)%get"]
    assert not facts[28].parallel
    assert [c.name for c in facts[31].loop.calls] == ["c(i)%step"]
    assert not facts[31].parallel


def test_assigning_a_finalizable_object_calls_its_final_procedure() -> None:
    text = dedent(
        """\
        module res
          implicit none
          integer :: fins = 0
          type handle
            real :: x
          contains
            final :: release
          end type
        contains
          subroutine release(h)
            type(handle), intent(inout) :: h
            fins = fins + 1
          end subroutine
        end module
        program t
          use res
          implicit none
          integer, parameter :: n = 1000
          type(handle) :: c(n), v
          integer :: i
          do i = 1, n
            c(i) = v
          end do
          do i = 1, n
            c(i)%x = i
          end do
        end program
        """
    )
    source = parse_source(text, "res.f90")
    analysis = analyze(source)
    facts = {loop.line: analysis.of(loop) for loop in source.loops()}
    assert [c.name for c in facts[21].loop.calls] == ["release"]
    assert not facts[21].parallel
    # A real component is assigned as it is: nothing is finalized.
    assert facts[24].parallel, [o.message for o in facts[24].obstacles]
