"""The Fortran front end builds the model the C analysis reads."""

from __future__ import annotations

from textwrap import dedent

import pytest
from accls.frontend import AccessKind, RedOp, parse_source

STENCIL = dedent(
    """\
    subroutine sweep(n, m, a, b)
      integer, intent(in) :: n, m
      real(8), intent(in) :: a(0:n+1, m)
      real(8), intent(out) :: b(n, m)
      integer :: i, j
      outer: do j = 2, m - 1, 2
        do i = n, 1, -1
          if (a(i, j) < 0) cycle
          b(i, j) = a(i - 1, j) + a(i + 1, j)
          if (b(i, j) > 9) exit outer
        end do
      end do outer
    end subroutine
    """
)


def _loop(text: str, line: int, path: str = "k.f90"):  # type: ignore[no-untyped-def]
    source = parse_source(text, path)
    return next(loop for loop in source.loops() if loop.line == line)


def test_column_major_subscripts_are_reversed_and_shifted_by_lower_bounds() -> None:
    inner = _loop(STENCIL, 7)
    reads = [r for r in inner.refs if r.name == "a" and r.subscripts]
    first = reads[0]
    # a(i, j) with a(0:n+1, m): the model's last subscript is the stride-1 one.
    assert [s.text for s in first.subscripts] == ["j", "i"]
    assert first.subscripts[0].poly is not None
    assert first.subscripts[0].poly.render() == "j - 1"
    assert first.subscripts[1].poly is not None
    assert first.subscripts[1].poly.render() == "i"


def test_do_bounds_are_inclusive_with_steps() -> None:
    outer = _loop(STENCIL, 6)
    assert (outer.var, outer.cond_op, outer.step) == ("j", "<=", 2)
    assert outer.lower is not None
    assert outer.lower.render() == "2"
    assert outer.upper is not None
    assert outer.upper.render() == "m - 1"
    inner = outer.children[0]
    assert (inner.var, inner.cond_op, inner.step) == ("i", ">=", -1)
    assert inner.trip_count == "n"


def test_unknown_step_leaves_the_direction_unknown() -> None:
    text = (
        "subroutine s(n, k, a)\n  real :: a(n)\n"
        "  do i = 1, n, k\n    a(i) = 0\n  end do\nend\n"
    )
    loop = _loop(text, 3)
    assert loop.step is None
    assert loop.cond_op is None


def test_labelled_exit_leaves_both_loops_and_cycle_only_skips() -> None:
    outer = _loop(STENCIL, 6)
    inner = outer.children[0]
    assert [e.kind.value for e in outer.exits] == ["break"]
    assert [e.kind.value for e in inner.exits] == ["break"]
    writes = [r for r in inner.refs if r.name == "b" and r.is_write]
    assert writes
    assert writes[0].context[-1] < 0


def test_dummies_are_restrict_and_intent_in_is_const() -> None:
    source = parse_source(STENCIL, "k.f90")
    fn = source.function("sweep")
    assert fn is not None
    a = fn.lookup("a")
    assert a is not None
    assert a.restrict
    assert a.const
    assert a.shaped
    assert a.lower_bounds == ("1", "0")
    assert a.dims == ("m", "n + 2")
    assert "b" in fn.writes_nonlocal


def test_pointer_arrays_may_alias_and_allocatables_know_their_size() -> None:
    text = dedent(
        """\
        subroutine s(n)
          real, pointer :: p(:)
          real, allocatable :: q(:, :)
          integer :: i
          do i = 1, n
            p(i) = q(i, 1)
          end do
        end subroutine
        """
    )
    fn = parse_source(text, "k.f90").function("s")
    assert fn is not None
    p, q = fn.lookup("p"), fn.lookup("q")
    assert p is not None
    assert p.pointers == 1
    assert not p.dims
    assert q is not None
    assert q.dims == ("size(q, 2)", "size(q, 1)")


def test_reductions_of_chains_and_intrinsics() -> None:
    text = dedent(
        """\
        subroutine s(n, a, t, hi)
          real(8) :: a(n), t, hi
          do i = 1, n
            t = t + a(i) - 1.0d0
            hi = max(hi, a(i))
          end do
        end subroutine
        """
    )
    loop = _loop(text, 3)
    ops = {r.name: r.reduction for r in loop.refs if r.kind is AccessKind.UPDATE}
    assert ops == {"t": RedOp.ADD, "hi": RedOp.MAX}


def test_module_variables_and_common_blocks_are_globals() -> None:
    text = dedent(
        """\
        module m
          real :: u(10)
        end module
        subroutine s()
          use m
          real :: w(5)
          common /blk/ w
          integer :: i
          do i = 1, 5
            w(i) = u(i)
          end do
        end subroutine
        """
    )
    source = parse_source(text, "k.f90")
    assert {g.name for g in source.globals} >= {"u", "w"}
    fn = source.function("s")
    assert fn is not None
    assert "w" in fn.writes_nonlocal


def test_calls_pass_by_reference_as_the_callee_declares() -> None:
    text = dedent(
        """\
        module m
        contains
          subroutine bump(x, y)
            real, intent(in) :: x
            real, intent(inout) :: y
            y = y + x
          end subroutine
        end module
        subroutine s(n, a, b)
          use m
          real :: a(n), b(n)
          do i = 1, n
            call bump(a(i), b(i))
            call unknown(a(i))
          end do
        end subroutine
        """
    )
    loop = _loop(text, 12)
    kinds = [(r.name, r.kind) for r in loop.refs if r.subscripts]
    assert ("a", AccessKind.READ) in kinds
    assert ("b", AccessKind.UPDATE) in kinds
    assert [c.name for c in loop.calls] == ["bump", "unknown"]
    assert any(r.escapes for r in loop.refs if r.name == "a")


def test_directives_attach_with_continuations_and_regions() -> None:
    text = dedent(
        """\
        subroutine s(n, a)
          real :: a(n)
          !$acc data copy(a(1:n))
          !$omp parallel do &
          !$omp& private(t) reduction(.or.:f)
          do i = 1, n
            a(i) = 1
          end do
          !$omp end parallel do
          !$acc end data
        end subroutine
        """
    )
    loop = _loop(text, 6)
    assert [(d.dialect, d.name) for d in loop.pragmas] == [("omp", "parallel for")]
    reduction = loop.pragmas[0].clause("reduction")
    assert reduction is not None
    assert reduction.args == "||:f"
    assert [r.directive.name for r in loop.regions] == ["data"]
    assert loop.regions[0].span.end[0] == 9


def test_a_masked_do_concurrent_and_an_unterminated_do_are_reported_not_guessed() -> (
    None
):
    text = (
        "program p\n  do concurrent (i = 1:4, a(i) > 0)\n    a(i) = 0\n"
        "  end do\nend program\n"
    )
    source = parse_source(text, "k.f90")
    assert not source.nests
    assert "do concurrent" in source.unread_loops[0][1]
    assert "mask" in source.unread_loops[0][1]
    broken = (
        "program p\n  real :: a(3)\n  do i = 1, 3\n"
        "    a(i) = i\n  print *, a\nend program\n"
    )
    source = parse_source(broken, "k.f90")
    assert not source.nests
    assert "without its `end do`" in source.unread_loops[0][1]


def test_fixed_form_comments_continuations_and_directives() -> None:
    text = (
        "      SUBROUTINE S(N, A)\n"
        "      REAL A(N)\n"
        "C     A COMMENT\n"
        "C$OMP PARALLEL DO\n"
        "      DO 10 I = 1,\n"
        "     &          N\n"
        "         A(I) = 0.0\n"
        "   10 CONTINUE\n"
        "      END\n"
    )
    source = parse_source(text, "k.f")
    loop = source.loops()[0]
    assert loop.var == "i"
    assert loop.upper is not None
    assert loop.upper.render() == "n"
    assert [d.name for d in loop.pragmas] == ["parallel for"]
    assert source.text == text  # spans point into the file as written


def test_source_form_notes() -> None:
    long_line = "program p\n  x = " + " + ".join(["1.0"] * 40) + "\nend program\n"
    assert any("longer than 132" in n for n in parse_source(long_line, "k.f90").notes)
    tabs = "      PROGRAM P\n\tX = 1\n      END\n"
    assert any("tab" in n for n in parse_source(tabs, "k.f").notes)
    mixed = "program p\nc one\nc two\nc three\nend program\n"
    assert any("mixed source form" in n for n in parse_source(mixed, "k.f90").notes)
    assert parse_source("program p\n  ! café 日本\nend program\n", "k.f90").errors == ()


def test_missing_include_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "k.f90"
    text = "program p\n  include 'nothere.inc'\nend program\n"
    src.write_text(text)
    assert parse_source(text, str(src)).missing_headers == ("nothere.inc",)


def test_case_default_is_a_branch_not_a_call() -> None:
    text = dedent(
        """\
        subroutine s(n, a, c)
          integer, intent(in) :: n, a(n)
          integer, intent(out) :: c(n)
          integer :: x
          do x = 1, n
            select case (a(x))
            case (0)
              c(x) = 1
            case default
              c(x) = 2
            end select
          end do
        end subroutine
        """
    )
    loop = _loop(text, 5)
    assert not loop.calls
    assert [r.name for r in loop.refs if r.is_write and r.name == "c"] == ["c", "c"]


def test_a_member_of_an_array_element_is_an_access_of_the_element() -> None:
    text = dedent(
        """\
        subroutine s(n, it)
          type item
            real(8) :: a, c
            real(8) :: v(3)
          end type item
          integer, intent(in) :: n
          type(item), intent(inout) :: it(n)
          integer :: x, k
          do x = 2, n
            it(x)%c = it(x - 1)%a + it(x)%v(k)
          end do
        end subroutine
        """
    )
    loop = _loop(text, 9)
    element = [r for r in loop.refs if r.name == "it"]
    assert [(r.kind, r.render()) for r in element] == [
        (AccessKind.READ, "it(x - 1)"),
        (AccessKind.READ, "it(x)"),
        (AccessKind.UPDATE, "it(x)"),  # a member written: the rest is kept
    ]
    assert {r.name for r in loop.refs if r.name == "k"} == {"k"}
    assert not any(r.member for r in element)


def test_a_pointer_into_a_local_target_array_may_alias_it() -> None:
    from accls.analysis.aliasing import alias_obstacles

    text = dedent(
        """\
        program t
          integer, target :: x(100)
          integer, pointer :: p(:)
          integer :: i
          p => x(2:100)
          do i = 1, 99
            x(i) = p(i) + x(i)
          end do
        end program
        """
    )
    source = parse_source(text, "k.f90")
    loop = next(loop for loop in source.loops() if loop.line == 6)
    fn = source.function("t")
    x = fn.lookup("x") if fn is not None else None
    assert x is not None
    assert x.address_taken
    check = alias_obstacles(loop, fn, source)
    assert [o.variable for o in check.obstacles] == ["x"]


def test_two_target_dummies_may_share_their_actual() -> None:
    from accls.analysis.aliasing import alias_obstacles

    text = dedent(
        """\
        subroutine work(a, b)
          integer, target :: a(:)
          integer, target :: b(:)
          integer :: i
          do i = 2, size(a)
            a(i) = b(i - 1) * 3
          end do
        end subroutine
        """
    )
    source = parse_source(text, "k.f90")
    loop = next(loop for loop in source.loops() if loop.line == 5)
    check = alias_obstacles(loop, source.function("work"), source)
    assert [o.variable for o in check.obstacles] == ["a"]


POINTER_MEMBERS = dedent(
    """\
    module boxes
      type inner
        real :: z(4)
        real, pointer :: q(:)
      end type
      type box
        real :: s
        real, pointer :: v
        type(inner) :: in
      end type
    end module
    program t
      use boxes
      integer, parameter :: n = 1000
      type(box) :: x(n)
      real :: c(n)
      integer :: i
      do i = 1, n
        x(i)%v = real(i)
        c(i) = x(i)%v
      end do
      do i = 1, n
        x(i)%in%q(1) = 1
        c(i) = x(i)%in%q(1)
      end do
      do i = 1, n
        x(i)%in%z(2) = x(i)%s
      end do
    end program
    """
)


def test_a_pointer_member_of_an_element_is_not_the_elements_storage() -> None:
    from accls.analysis import analyze

    source = parse_source(POINTER_MEMBERS, "k.f90")
    analysis = analyze(source)
    facts = {loop.line: analysis.of(loop) for loop in source.loops()}
    # `x(i)%v` and `x(i)%in%q(1)`: the pointers of all elements may share one
    # target, so the elements' disjointness says nothing about these writes.
    writes = [r for r in facts[18].loop.refs if r.is_write and r.name != "i"]
    assert [(r.name, r.member) for r in writes] == [("x.v", True), ("c", False)]
    assert not facts[18].parallel
    assert not facts[22].parallel
    # Components without `pointer` (nested too) stay parts of the element.
    assert facts[26].parallel, [o.message for o in facts[26].obstacles]
    assert [r.name for r in facts[26].loop.refs if r.is_write] == ["i", "x"]


def test_a_member_of_a_type_defined_out_of_sight_may_be_a_pointer() -> None:
    text = dedent(
        """\
        subroutine s(n, it)
          use elsewhere
          integer, intent(in) :: n
          type(item), intent(inout) :: it(n)
          integer :: x
          do x = 1, n
            it(x)%c = 1
          end do
        end subroutine
        """
    )
    loop = _loop(text, 6)
    written = [(r.name, r.member) for r in loop.refs if r.is_write and r.name != "x"]
    assert written == [("it.c", True)]


@pytest.mark.parametrize(
    ("head", "store"),
    [
        ("real function f(x)", "f = x * x"),  # undeclared: implicitly typed
        ("real function f(x) result(r)", "r = x * x"),
        ("function f(x) result(r)", "r = x * x"),
    ],
)
def test_a_functions_result_variable_is_its_own(head: str, store: str) -> None:
    text = dedent(
        f"""\
        module m
        contains
          {head}
            real, intent(in) :: x
            {store}
          end function
        end module
        """
    )
    fn = parse_source(text, "k.f90").function("f")
    assert fn is not None
    assert fn.writes_nonlocal == ()
