"""`do concurrent` as the `do` nest it means: a directive where gfortran takes one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest
from accls.frontend import parse_source
from accls.settings import Settings
from accls.suggest import Dialect, Target
from accls.suggest.annotate import annotate_text

PROGRAM = dedent(
    """\
    program dc
      implicit none
      integer, parameter :: n = 300, m = 200
      real(8) :: a(n, m), b(n, m)
      integer :: i, j, k
      a = 0; k = 5
      do concurrent (i = 1:n, j = 1:m)
        b(i, j) = dble(i + 2 * j)
      end do
      do concurrent (i = 2:n, j = 1:m:2)
        a(i, j) = b(i, j) * 0.5d0 + b(i - 1, j)
      end do
      do concurrent (k = 1:n, a(k, 1) > 0)
        a(k, 2) = 1
      end do
      do concurrent (k = 1:n)
        a(k, 3) = 2
      end do
      print *, k
      do concurrent (i = 1:n)
        b(i, 3) = 2
      end do
      print *, sum(a), sum(b)
    end program dc
    """
)


def _suggest(text: str, path: Path, model: str):  # type: ignore[no-untyped-def]
    from accls.pipeline import suggest_text

    dialect = Dialect.OPENACC if model == "openacc" else Dialect.OPENMP
    target = Target.GPU if model == "openacc" else Target.CPU
    return suggest_text(text, str(path), Settings(dialect=dialect, target=target))


def test_the_nest_puts_the_last_index_outermost() -> None:
    source = parse_source(PROGRAM, "dc.f90")
    outer = next(loop for loop in source.loops() if loop.line == 7)
    assert outer.var == "j"
    assert outer.concurrent == ("do j = 1, m", "do i = 1, n")
    assert outer.perfect
    assert [c.var for c in outer.children] == ["i"]
    assert outer.children[0].in_concurrent
    stepped = next(loop for loop in source.loops() if loop.line == 10)
    assert stepped.concurrent == ("do j = 1, m, 2", "do i = 2, n")
    assert stepped.step == 2
    (why,) = [w for span, w in source.unread_loops if span.line == 13]
    assert "mask" in why
    assert "no loop directive" in why


def test_an_index_read_afterwards_keeps_the_loop_as_it_is(tmp_path: Path) -> None:
    found = _suggest(PROGRAM, tmp_path / "dc.f90", "openmp")
    at = {s.loop.line: s for s in found.suggestions}
    assert at[16].pragma is None
    assert any("`k` is read after the `do concurrent`" in r for r in at[16].reasons)
    # `i` of the other loops is theirs: the next `do concurrent` reads its own.
    assert at[20].pragma is not None


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
@pytest.mark.parametrize("model", ["openmp", "openacc"])
def test_the_rewritten_nest_compiles_and_prints_what_the_original_does(
    model: str, tmp_path: Path
) -> None:
    source = tmp_path / "dc.f90"
    source.write_text(PROGRAM)
    found = _suggest(PROGRAM, source, model)
    offered = tuple(s for s in found.suggestions if s.pragma is not None)
    lines = sorted(s.loop.line for s in offered)
    assert lines == [7, 10, 20]
    for s in offered:
        assert found.validation[s.loop.id].compiles is True
        assert any("`do concurrent` written as" in r for r in s.reasons)
    text = annotate_text(PROGRAM, offered)
    assert "  ! do concurrent (i = 1:n, j = 1:m)" in text
    assert "  do j = 1, m\n  do i = 1, n\n" in text
    annotated = tmp_path / "annotated.f90"
    annotated.write_text(text)
    flag = "-fopenmp" if model == "openmp" else "-fopenacc"
    outputs = []
    for name, file, flags in (
        ("serial", source, ["-O1"]),
        ("parallel", annotated, ["-O0", flag]),
    ):
        exe = tmp_path / name
        built = subprocess.run(
            ["gfortran", *flags, str(file), "-o", str(exe)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert built.returncode == 0, built.stderr
        ran = subprocess.run(
            [str(exe)],
            capture_output=True,
            text=True,
            check=False,
            env={"OMP_NUM_THREADS": "4"},
        )
        outputs.append(ran.stdout)
    assert outputs[0] == outputs[1]
