"""`use` of a module another file defines: its variables and procedures are known."""

from __future__ import annotations

import shutil
from pathlib import Path
from textwrap import dedent

import pytest
from accls.analysis import analyze
from accls.frontend import parse_source
from accls.settings import Settings
from accls.suggest import Dialect, Target

GRID = dedent(
    """\
    module grid
      use consts
      implicit none
      real(8), allocatable :: u(:,:), v(:,:)
      real(8), pointer :: p(:)
    contains
      pure real(8) function sq(x)
        real(8), intent(in) :: x
        sq = x * x
      end function sq
      subroutine bump(a)
        real(8), intent(inout) :: a(:)
        a = a + 1
        count = count + 1
      end subroutine bump
    end module grid
    """
)
CONSTS = dedent(
    """\
    module consts
      integer, parameter :: n = 64
      integer :: count = 0
    end module consts
    """
)
STEP = dedent(
    """\
    subroutine step()
      use grid
      implicit none
      integer :: i, j
      do j = 1, n
        do i = 1, n
          v(i, j) = sq(u(i, j))
        end do
      end do
      do j = 1, n
        call bump(v(:, j))
      end do
    end subroutine step
    """
)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "grid.f90").write_text(GRID)
    (tmp_path / "consts.f90").write_text(CONSTS)
    main = tmp_path / "step.f90"
    main.write_text(STEP)
    return main


def _facts(path: Path, include: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    source = parse_source(path.read_text(), str(path), include)
    analysis = analyze(source)
    return source, {loop.line: analysis.of(loop) for loop in source.loops()}


def test_module_variables_of_another_file_are_arrays_with_shapes(
    tmp_path: Path,
) -> None:
    source, facts = _facts(_project(tmp_path))
    names = {v.name: v for v in source.globals}
    assert names["u"].dims
    assert names["u"].scope == "global"
    assert names["p"].pointers == 1
    assert names["n"].name == "n"  # through the module `grid` uses
    refs = {r.name for r in facts[5].loop.refs}
    assert {"u", "v"} <= refs
    assert not facts[5].loop.calls  # `sq` is pure: no call left to summarise
    assert facts[5].parallel, [o.message for o in facts[5].obstacles]


def test_an_impure_module_procedure_stays_an_obstacle(tmp_path: Path) -> None:
    _, facts = _facts(_project(tmp_path))
    assert not facts[10].parallel
    assert any("bump" in o.message for o in facts[10].obstacles)


def test_a_module_found_in_an_include_folder(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "grid.f90").write_text(GRID)
    (lib / "consts.f90").write_text(CONSTS)
    src = tmp_path / "src"
    src.mkdir()
    main = src / "step.f90"
    main.write_text(STEP)
    alone = parse_source(STEP, str(main))
    assert alone.missing_modules == ("grid",)
    source, facts = _facts(main, (str(lib),))
    assert not source.missing_modules
    assert facts[5].parallel


def test_an_unknown_module_is_a_clear_reason(tmp_path: Path) -> None:
    main = tmp_path / "step.f90"
    main.write_text(STEP)
    _, facts = _facts(main)
    assert not facts[5].parallel
    message = " ".join(o.message for o in facts[5].obstacles)
    assert "module `grid`" in message
    assert "not beside this file" in message


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
def test_the_compile_check_builds_the_used_modules_first(tmp_path: Path) -> None:
    from accls.pipeline import suggest_text

    main = _project(tmp_path)
    settings = Settings(dialect=Dialect.OPENMP, target=Target.CPU)
    found = suggest_text(main.read_text(), str(main), settings)
    offered = [s for s in found.suggestions if s.pragma is not None]
    assert offered
    checked = found.validation[offered[0].loop.id]
    assert checked.compiles is True, checked
    assert not list(tmp_path.glob("*.mod"))  # nothing written beside the sources


def test_the_compilers_own_modules_are_not_missing(tmp_path: Path) -> None:
    text = "subroutine s()\n  use openacc\n  use, intrinsic :: iso_c_binding\nend\n"
    source = parse_source(text, str(tmp_path / "s.f90"))
    assert source.missing_modules == ()


def test_reasons_and_loops_are_spelled_the_fortran_way(tmp_path: Path) -> None:
    text = dedent(
        """\
        subroutine sweep(n, m, a)
          integer, intent(in) :: n, m
          real(8), intent(inout) :: a(0:n+1, m)
          integer :: i, j
          do j = 2, m
            do i = 1, n
              a(i, j) = a(i, j - 1) + 1
            end do
          end do
        end subroutine
        """
    )
    main = tmp_path / "sweep.f90"
    main.write_text(text)
    _, facts = _facts(main)
    assert facts[5].loop.title == "do j"
    message = " ".join(o.message for o in facts[5].obstacles)
    assert "`a(i, j)`" in message
    assert "`a(i, j - 1)`" in message
    assert "[" not in message


def test_module_folders_of_a_project_tree(tmp_path: Path) -> None:
    from accls.frontend.fortran_modules import module_folders

    (tmp_path / "lib" / "deep").mkdir(parents=True)
    (tmp_path / "lib" / "deep" / "grid.f90").write_text(GRID)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "step.f90").write_text(STEP)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "consts.f90").write_text(CONSTS)
    assert module_folders(str(tmp_path)) == (str(tmp_path / "lib" / "deep"),)


def test_the_cli_finds_modules_anywhere_in_the_project(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "grid.f90").write_text(GRID)
    (tmp_path / "lib" / "consts.f90").write_text(CONSTS)
    (tmp_path / "src").mkdir()
    main = tmp_path / "src" / "step.f90"
    main.write_text(STEP)

    def pragma(*flags: str) -> object:
        done = subprocess.run(
            [sys.executable, "-m", "accls", "suggest", "--format", "json", *flags],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert done.returncode == 0, done.stderr
        return next(o for o in json.loads(done.stdout) if o["line"] == 5)["pragma"]

    assert pragma("--no-validate", str(main)) is None
    found = pragma("--no-validate", "--project", str(tmp_path), str(main))
    assert isinstance(found, str)
    assert found.startswith("!$acc parallel loop")


def test_reductions_and_call_reasons_are_spelled_the_fortran_way(
    tmp_path: Path,
) -> None:
    from accls.suggest import suggest_file

    text = dedent(
        """\
        module m
        contains
          subroutine bump(x, k)
            real, intent(inout) :: x(:)
            integer, intent(in) :: k
            x(1) = x(1) + k
          end subroutine
        end module
        subroutine r(n, a, m, b, ok, bits)
          use m
          integer, intent(in) :: n
          logical, intent(in) :: a(n)
          integer, intent(in) :: m(n)
          real, intent(inout) :: b(n)
          logical, intent(out) :: ok
          integer, intent(out) :: bits
          integer :: i
          ok = .true.; bits = 0
          do i = 1, n
            ok = ok .and. a(i)
            bits = ior(bits, m(i))
          end do
          do i = 1, n
            call bump(b, i)
          end do
        end subroutine
        """
    )
    source = parse_source(text, str(tmp_path / "r.f90"))
    options = Settings(dialect=Dialect.OPENMP, target=Target.CPU).suggest_options
    found = {s.loop.line: s for s in suggest_file(analyze(source), options)}
    reasons = " ".join(found[19].reasons)
    assert "reduction(.and.:ok): `ok` is only updated as `ok = ok .and. ...`" in reasons
    assert "reduction(ior:bits): `bits` is only updated as `bits = ior(bits, ...)`" in (
        reasons
    )
    assert "&&" not in reasons
    blocked = " ".join(found[23].reasons)
    assert "modifies its argument `b`" in blocked
    assert "every element of `b`" in blocked


OPS = dedent(
    """\
    module ops
      implicit none
      real :: total = 0
    contains
      subroutine twice(x, y)
        real, intent(in) :: x
        real, intent(out) :: y
        y = 2 * x
      end subroutine twice
      subroutine tally(x)
        real, intent(in) :: x
        total = total + x
      end subroutine tally
    end module ops
    """
)
RUN = dedent(
    """\
    subroutine run(n, a, b)
      use ops
      implicit none
      integer, intent(in) :: n
      real, intent(in) :: a(n)
      real, intent(out) :: b(n)
      integer :: i
      do i = 1, n
        call twice(a(i), b(i))
      end do
      do i = 1, n
        call tally(a(i))
      end do
    end subroutine run
    """
)


def test_the_project_index_summarises_another_files_module_procedures(
    tmp_path: Path,
) -> None:
    from accls.pipeline import suggest_text
    from accls.project import ProjectIndex

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "ops.f90").write_text(OPS)
    (tmp_path / "src").mkdir()
    main = tmp_path / "src" / "run.f90"
    main.write_text(RUN)
    index = ProjectIndex(str(tmp_path), cache_dir=str(tmp_path / "cache"))
    index.build()
    settings = Settings(dialect=Dialect.OPENMP, target=Target.CPU, validate=False)
    found = suggest_text(
        RUN,
        str(main),
        settings,
        include_dirs=(str(tmp_path / "lib"),),
        program=index.program_for(str(main)),
    )
    at = {s.loop.line: s for s in found.suggestions}
    assert at[8].pragma is not None, at[8].reasons
    assert at[11].pragma is None
    assert any("writes the global `total`" in r for r in at[11].reasons)


STORE = dedent(
    """\
    module store
      implicit none
      real, allocatable :: u(:)
      real, allocatable, target :: t(:)
      real, pointer :: p(:)
    end module store
    """
)
GO = dedent(
    """\
    subroutine go(n)
      use store
      implicit none
      integer, intent(in) :: n
      integer :: i
      do i = 1, n
        p(i) = u(i) + 1
      end do
      do i = 1, n
        p(i) = t(i) + 1
      end do
    end subroutine go
    """
)


def test_a_pointer_reaches_only_targets(tmp_path: Path) -> None:
    (tmp_path / "store.f90").write_text(STORE)
    main = tmp_path / "go.f90"
    main.write_text(GO)
    _, facts = _facts(main)
    assert facts[6].parallel, [o.message for o in facts[6].obstacles]
    assert not facts[9].parallel
    assert any("`p`" in o.message and "`t`" in o.message for o in facts[9].obstacles)


def test_equivalence_keeps_every_array_in_doubt(tmp_path: Path) -> None:
    (tmp_path / "store.f90").write_text(
        STORE.replace(
            "end module", "  real :: e(4), f(4)\n  equivalence (e, f)\nend module"
        )
    )
    main = tmp_path / "go.f90"
    main.write_text(GO)
    _, facts = _facts(main)
    assert not facts[6].parallel


def test_a_pure_procedure_of_another_file_reads_its_module_variables(
    tmp_path: Path,
) -> None:
    (tmp_path / "store.f90").write_text(
        dedent(
            """\
            module store
              implicit none
              real :: g(1001), h(1001)
            contains
              pure real function peek(i)
                integer, intent(in) :: i
                peek = g(i + 1)
              end function
            end module
            """
        )
    )
    main = tmp_path / "shift.f90"
    main.write_text(
        dedent(
            """\
            subroutine shift()
              use store
              implicit none
              integer :: i
              do i = 1, 1000
                g(i) = peek(i) * 2
              end do
              do i = 1, 1000
                h(i) = peek(i) * 2
              end do
            end subroutine
            """
        )
    )
    _, facts = _facts(main)
    # `peek` reads `g(i + 1)`, which the next iteration writes.
    assert not facts[5].parallel
    assert any("`g`" in o.message for o in facts[5].obstacles)
    # `h` is not among what the module's procedures mention.
    assert facts[8].parallel, [o.message for o in facts[8].obstacles]
