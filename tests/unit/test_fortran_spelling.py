"""Pragmas for Fortran files are spelled, placed and validated the Fortran way."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import AnalysisOptions, analyze
from accls.analysis.checks import check_file
from accls.frontend import Clause, Var, parse_source
from accls.suggest import Dialect, Pragma, SuggestOptions, Target, suggest_file
from accls.suggest.annotate import annotate_text
from accls.suggest.fortran_spelling import FortranPragma, _item

KERNELS = dedent(
    """\
    subroutine s(n, x, y, total)
      integer, intent(in) :: n
      real(8), intent(in) :: x(n)
      real(8), intent(inout) :: y(n)
      real(8), intent(out) :: total
      integer :: i
      total = 0
      do i = 1, n
        y(i) = 2 * x(i) + y(i)
      end do
      do i = 1, n
        total = total + y(i)
      end do
    end subroutine
    """
)


def _suggest(text: str, dialect: Dialect, target: Target, path: str = "k.f90"):  # type: ignore[no-untyped-def]
    source = parse_source(text, path)
    dialect_word = "acc" if dialect is Dialect.OPENACC else "omp"
    analysis = analyze(source, AnalysisOptions(dialect=dialect_word))
    return suggest_file(analysis, SuggestOptions(dialect, target))


def test_openmp_is_spelled_parallel_do_and_closed() -> None:
    found = _suggest(KERNELS, Dialect.OPENMP, Target.CPU)
    texts = [s.pragma.render() for s in found if s.pragma is not None]
    assert texts == ["!$omp parallel do", "!$omp parallel do reduction(+:total)"]
    annotated = annotate_text(KERNELS, found)
    assert annotated.count("!$omp end parallel do") == 2
    lines = annotated.split("\n")
    closing = lines.index("  !$omp end parallel do")
    assert lines[closing - 1].strip() == "end do"


def test_offload_moves_whole_arrays_by_name() -> None:
    found = _suggest(KERNELS, Dialect.OPENACC, Target.GPU)
    first = found[0].pragma
    assert first is not None
    assert first.render() == "!$acc parallel loop present(x, y)"
    assert first.end_line() is None
    region = found[0].region
    assert region is not None
    assert region.pragma.render() == "!$acc data copy(y) copyin(x)"
    annotated = annotate_text(KERNELS, found).split("\n")
    assert annotated[-3:] == ["  !$acc end data", "end subroutine", ""]
    target = _suggest(KERNELS, Dialect.OPENMP, Target.GPU)[0].pragma
    assert target is not None
    assert target.render() == "!$omp target teams distribute parallel do"
    offload = annotate_text(KERNELS, _suggest(KERNELS, Dialect.OPENMP, Target.GPU))
    assert "  !$omp target data map(tofrom: y) map(to: x)\n" in offload
    assert offload.endswith("  !$omp end target data\nend subroutine\n")


def test_sections_use_lower_bounds_and_partial_copyout_becomes_copy() -> None:
    shaped = Var(name="a", type="double", dims=("n",), scope="param", shaped=True)
    assert _item("a[1:n - 2]", "copyout", {"a": shaped}) == ("a", "copy")
    assert _item("a[0:n]", "copyout", {"a": shaped}) == ("a", "copyout")
    assumed = Var(name="b", type="double", dims=(None, "m"), lower_bounds=("1", "0"))
    assert _item("b[0:k][1:m - 1]", "copyin", {"b": assumed}) == (
        "b(1:m - 1, 1:k)",
        "copyin",
    )


def test_reduction_operators_and_long_lines() -> None:
    pragma = FortranPragma(
        Dialect.OPENMP,
        "parallel for",
        (
            Clause("reduction", "&&:ok"),
            Clause("private", ", ".join(f"v{i}" for i in range(40))),
        ),
        fixed=False,
    )
    assert "reduction(.and.:ok)" in pragma.render()
    written = pragma.written("  ", "\n")
    assert all(len(line) <= 132 for line in written.split("\n"))
    assert written.split("\n")[0].endswith("&")
    assert written.split("\n")[1].lstrip().startswith("!$omp&")
    fixed = FortranPragma(Dialect.OPENACC, "parallel loop", (), fixed=True)
    assert fixed.written("      ", "\n") == "!$acc parallel loop"
    assert Pragma(Dialect.OPENMP, "parallel for").written("  ", "\n") == (
        "  #pragma omp parallel for"
    )


def test_routine_goes_inside_the_procedure() -> None:
    text = dedent(
        """\
        module m
        contains
          real(8) function twice(v)
            real(8), intent(in) :: v
            twice = 2 * v
          end function
          subroutine s(n, x)
            integer, intent(in) :: n
            real(8), intent(inout) :: x(n)
            integer :: i
            do i = 1, n
              x(i) = twice(x(i))
            end do
          end subroutine
        end module
        """
    )
    found = _suggest(text, Dialect.OPENACC, Target.GPU)
    annotated = annotate_text(text, found)
    lines = [ln.strip() for ln in annotated.split("\n")]
    if "!$acc routine seq" in lines:
        at = lines.index("!$acc routine seq")
        assert lines[at - 1].startswith("real(8) function twice")


def test_check_finds_a_race_in_a_fortran_directive() -> None:
    text = dedent(
        """\
        subroutine s(n, a)
          integer, intent(in) :: n
          real(8), intent(inout) :: a(n)
          integer :: i
          !$omp parallel do
          do i = 2, n
            a(i) = a(i - 1) + 1
          end do
          !$omp end parallel do
        end subroutine
        """
    )
    found = check_file(text, "k.f90", [])
    assert [f.code for f in found if f.level.value == "error"] == ["ACC101"]


def _verdicts(text: str) -> list[bool]:
    return [s.pragma is not None for s in _suggest(text, Dialect.OPENMP, Target.CPU)]


def test_a_callee_keeping_a_saved_local_is_not_called_in_parallel() -> None:
    text = dedent(
        """\
        module m
        contains
          subroutine counter(x)
            real, intent(inout) :: x
            integer :: calls = 0
            calls = calls + 1
            x = x + calls
          end subroutine
        end module
        subroutine s(n, b)
          use m
          integer :: n, i
          real :: b(n)
          do i = 1, n
            call counter(b(i))
          end do
        end subroutine
        """
    )
    assert _verdicts(text) == [False]


def test_an_element_passed_to_an_array_dummy_covers_what_follows_it() -> None:
    text = dedent(
        """\
        module m
        contains
          subroutine two(x)
            real, intent(inout) :: x(2)
            x(2) = x(1) + 1
          end subroutine
        end module
        subroutine s(n, a)
          use m
          integer :: n, i
          real :: a(n)
          do i = 1, n - 1
            call two(a(i))
          end do
        end subroutine
        """
    )
    assert _verdicts(text) == [False]


def test_fixed_form_directives_start_in_column_one() -> None:
    text = (
        "      SUBROUTINE S(N, A)\n"
        "      INTEGER N, I\n"
        "      REAL*8 A(N)\n"
        "      DO I = 1, N\n"
        "         A(I) = 2 * A(I)\n"
        "      END DO\n"
        "      END\n"
    )
    found = _suggest(text, Dialect.OPENMP, Target.CPU, "k.f")
    annotated = annotate_text(text, found).split("\n")
    assert annotated[3] == "!$omp parallel do"
    assert annotated[7] == "!$omp end parallel do"


def test_the_compile_check_leaves_no_module_files_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accls.pipeline import suggest_text
    from accls.settings import Settings

    monkeypatch.chdir(tmp_path)
    text = "module m\ncontains\n" + KERNELS.replace("\n", "\n  ") + "\nend module m\n"
    src = tmp_path / "k.f90"
    src.write_text(text)
    suggest_text(text, str(src), Settings(dialect=Dialect.OPENMP))
    assert not list(tmp_path.glob("*.mod"))
